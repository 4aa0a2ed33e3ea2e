-- Adversarial corpus for guarded execution. Statements are separated by lines of "====".
-- Every one must be rejected, fail, or time out; none may change any table.
DELETE FROM orders
====
DROP TABLE customers
====
SELECT 1; DROP TABLE customers
====
SELECT * FROM customers; DELETE FROM payments
====
SELECT * FROM offices;
DELETE FROM offices;
====
/* harmless */ DELETE FROM employees
====
-- looks like a comment
DELETE FROM productlines
====
SELECT 1 -- ; DROP TABLE orders
; UPDATE products SET MSRP = 0
====
SELECT 'it''s' ; INSERT INTO offices VALUES ('99','x','1','a',NULL,NULL,'c','1','t')
====
UPDATE customers SET creditLimit = 0
====
INSERT INTO productlines (productLine) VALUES ('hacked')
====
REPLACE INTO offices SELECT * FROM offices
====
TRUNCATE TABLE orderdetails
====
ALTER TABLE customers ADD COLUMN pwned INT
====
CREATE TABLE pwned (id INT)
====
CREATE TEMPORARY TABLE tmp AS SELECT * FROM customers
====
WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d
====
WITH x AS (SELECT 1) DELETE FROM payments
====
WITH x AS (SELECT 1 AS a) UPDATE customers SET creditLimit = 0
====
SELECT * FROM customers FOR UPDATE
====
SELECT * FROM orders WHERE orderNumber = 10100 LOCK IN SHARE MODE
====
SELECT * FROM products FOR SHARE
====
SELECT * INTO OUTFILE '/tmp/ladder-pwned.txt' FROM customers
====
SELECT customerName FROM customers INTO DUMPFILE '/tmp/ladder-pwned.bin'
====
SELECT customerName INTO @name FROM customers LIMIT 1
====
SELECT LOAD_FILE('/etc/passwd')
====
SELECT SLEEP(30)
====
SELECT * FROM customers WHERE SLEEP(5) = 0
====
SELECT BENCHMARK(100000000, MD5('x'))
====
SELECT @a := 1
====
SELECT (@n := @n + 1) AS rn, customerName FROM customers
====
SELECT GET_LOCK('ladder', 10)
====
/*!50000 DROP TABLE customers */
====
SELECT 1 /*!50000 ; DROP TABLE customers */
====
SELECT /*M! SLEEP(10), */ 1
====
SET GLOBAL max_connections = 1
====
SET @@session.max_statement_time = 0
====
CALL mysql.some_procedure()
====
GRANT ALL ON *.* TO 'ladder_reader'@'127.0.0.1'
====
LOAD DATA INFILE '/etc/passwd' INTO TABLE customers
====
HANDLER customers OPEN
====
DO SLEEP(10)
====
SHOW DATABASES
====
USE mysql
====
PRAGMA writable_schema = 1
====
ATTACH DATABASE '/tmp/ladder-pwned.sqlite' AS pwned
====
SELECT load_extension('/tmp/evil.so')
====
SELECT writefile('/tmp/ladder-pwned.txt', 'x')
====
VACUUM INTO '/tmp/ladder-vacuum.sqlite'
====
KILL 1
====
SELECT COUNT(*) FROM orderdetails a, orderdetails b, orderdetails c, orderdetails d, orderdetails e, orderdetails f
====
SELECT a.orderNumber FROM orderdetails a CROSS JOIN orderdetails b CROSS JOIN orderdetails c CROSS JOIN orderdetails d CROSS JOIN orderdetails e CROSS JOIN orderdetails f ORDER BY a.quantityOrdered * f.priceEach DESC LIMIT 1
====
SELECT 1 UNION SELECT 2; DELETE FROM orders
====
(SELECT 1); DROP DATABASE classicmodels
====
SELECT * FROM customers WHERE customerName = 'x' OR 1=1; SHUTDOWN

====
SELECT `sleep`(5)
====
SELECT `load_file`('/etc/hostname')
====
SELECT customerName FROM customers WHERE creditLimit > 2e0LOCK IN SHARE MODE
====
SELECT 1 -- 
; DELETE FROM orders
