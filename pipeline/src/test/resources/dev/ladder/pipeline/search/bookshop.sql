-- A small Spider-style database written for the structured-search tests (not from any benchmark): a bookshop whose
-- customers place orders of books, plus a staff rota that no foreign key connects to the rest.
CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, full_name TEXT, city TEXT, signup_year INTEGER);
CREATE TABLE purchase (purchase_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id), purchase_date TEXT, status TEXT);
CREATE TABLE purchase_line (purchase_id INTEGER REFERENCES purchase(purchase_id), book_id INTEGER REFERENCES book(book_id), quantity INTEGER, unit_price REAL, PRIMARY KEY (purchase_id, book_id));
CREATE TABLE book (book_id INTEGER PRIMARY KEY, title TEXT, genre TEXT, author_id INTEGER REFERENCES author(author_id));
CREATE TABLE author (author_id INTEGER PRIMARY KEY, author_name TEXT, nationality TEXT);
CREATE TABLE shift (shift_id INTEGER PRIMARY KEY, staff_name TEXT, weekday TEXT);
CREATE TABLE holiday (holiday_id INTEGER PRIMARY KEY, staff_name TEXT, start_day TEXT);
INSERT INTO customer VALUES (1, 'Ada Moss', 'Leeds', 2019), (2, 'Ben Ortiz', 'Porto', 2021), (3, 'Cy Young', 'Leeds', 2021);
INSERT INTO author VALUES (1, 'R. Vale', 'Irish'), (2, 'T. Okoye', 'Nigerian');
INSERT INTO book VALUES (1, 'Salt Roads', 'travel', 1), (2, 'Quiet Engines', 'science', 2), (3, 'Low Tide', 'travel', 2);
INSERT INTO purchase VALUES (10, 1, '2022-03-01', 'shipped'), (11, 1, '2022-05-09', 'shipped'), (12, 2, '2023-01-15', 'open');
INSERT INTO purchase_line VALUES (10, 1, 2, 12.5), (10, 2, 1, 20.0), (11, 3, 1, 9.0), (12, 1, 3, 12.5);
INSERT INTO shift VALUES (1, 'Dee', 'Mon'), (2, 'Eli', 'Tue');
INSERT INTO holiday VALUES (1, 'Dee', '2023-08-01');
