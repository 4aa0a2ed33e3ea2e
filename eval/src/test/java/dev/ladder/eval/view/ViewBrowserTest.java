package dev.ladder.eval.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ladder.eval.experiment.Cell;
import dev.ladder.eval.run.ItemResult;
import dev.ladder.eval.run.ResultsStore;
import dev.ladder.eval.run.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * {@code ladder view}'s pages in a real headless browser (Debian's chromium through chromium-driver, driven by
 * Selenium): served on loopback and exported as files. The run is written here: two rungs, one item the upper rung
 * fixes, and model output holding script and markup that must render as text.
 */
class ViewBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    /** Screenshots of every page, kept as test artifacts. */
    static final Path SHOTS = Path.of("target/view-screenshots");

    @TempDir static Path tmp;
    static WebDriver browser;
    static RunViewer viewer;

    static final String XSS_OUTPUT = "SELECT 1 <script>window.__xss = 'output'</script>";
    static final String XSS_SQL = "SELECT '<img src=x onerror=\"window.__xss=1\">' FROM offices";

    static ItemResult row(String cell, String item, String question, String predicted, boolean ex, String errorClass) {
        return new ItemResult(cell, item, "filter", "easy", question, "SELECT city FROM offices", predicted, true, ex, ex,
                null, null, errorClass, "standard", 100, 10, 50, 1, 0, 0, 0);
    }

    static String trace(String id, String strategy, String output, String sql) {
        return "{\"questionId\":\"" + id + "\",\"strategy\":\"" + strategy + "\",\"sql\":" + q(sql) + ",\"chosen\":\"standard\","
                + "\"decision\":\"the cleaned greedy output\",\"promptTokens\":100,\"generatedTokens\":10,\"millis\":50,"
                + "\"steps\":[{\"kind\":\"generate\",\"source\":\"standard\",\"sources\":[\"standard\"],\"sampling\":\"greedy\","
                + "\"promptTokens\":100,\"generatedTokens\":10,\"prefillMillis\":1,\"decodeMillis\":2,\"outputs\":[" + q(output)
                + "],\"finishReasons\":[\"stop_token\"],\"stopStrings\":[]},{\"kind\":\"clean\",\"source\":\"standard\",\"raw\":"
                + q(output) + ",\"sql\":" + q(sql) + ",\"steps\":[],\"rejection\":null},{\"kind\":\"execute\",\"source\":\"standard\","
                + "\"sql\":" + q(sql) + ",\"ok\":true,\"rows\":7,\"truncated\":false,\"millis\":3,\"cached\":false}]}";
    }

    static String q(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @BeforeAll
    static void setUp() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "chromium and chromium-driver are not installed (.ci/run installs them)");
        Path run = tmp.resolve("run");
        RunDirectory dir = RunDirectory.create(run);
        Cell low = new Cell(0, "agent-0", "m", "", "agent-0", 0);
        Cell high = new Cell(1, "agent-1", "m", "", "agent-1", 0);
        try (ResultsStore s = dir.openResults()) {
            s.putCell(low);
            s.putCell(high);
            s.put(row("agent-0", "q1", "Which cities have offices?", "SELECT town FROM offices", false, "wrong-column"), 0,
                    trace("q1", "agent-0", "SELECT town FROM offices", "SELECT town FROM offices"));
            s.put(row("agent-0", "q2", "How many offices are there?", "SELECT COUNT(*) FROM offices", true, "correct"), 1,
                    trace("q2", "agent-0", "SELECT COUNT(*) FROM offices", "SELECT COUNT(*) FROM offices"));
            s.put(row("agent-1", "q1", "Which cities have offices?", XSS_SQL, true, "correct"), 0,
                    trace("q1", "agent-1", XSS_OUTPUT, XSS_SQL));
            s.put(row("agent-1", "q2", "How many offices are there?", "SELECT COUNT(*) FROM offices", true, "correct"), 1,
                    trace("q2", "agent-1", "SELECT COUNT(*) FROM offices", "SELECT COUNT(*) FROM offices"));
        }
        viewer = RunViewer.of(List.of(run));
        Files.createDirectories(SHOTS);
        System.setProperty("webdriver.chrome.driver", DRIVER.toString());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600");
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build(), options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void tearDown() {
        if (browser != null) browser.quit();
    }

    static void shot(String name) throws Exception {
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    /** Picks an option as a user would: the value changes and the page hears an input event. */
    static void choose(String select, String value) {
        ((JavascriptExecutor) browser).executeScript("const s = document.getElementById(arguments[0]); s.value = arguments[1];"
                + "s.dispatchEvent(new Event('input'));", select, value);
    }

    static String count() {
        return browser.findElement(By.id("count")).getText();
    }

    /** The checks every copy of the site must pass, from its root URL. */
    static void browse(String root, String label) throws Exception {
        browser.get(root + "index.html");
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("Accuracy by rung").contains("agent-1");
        shot(label + "-overview");

        browser.get(root + "items.html");
        assertThat(count()).isEqualTo("4 rows shown (2 items) of 4");
        choose("f-rung", "agent-1");
        assertThat(count()).startsWith("2 rows shown");
        choose("f-rung", "");
        choose("f-change", "fixed");
        choose("f-by", "agent-1");
        assertThat(count()).isEqualTo("1 rows shown (1 items) of 4");
        assertThat(browser.findElement(By.cssSelector("#items tbody")).getText()).contains("q1").contains("onerror")
                .doesNotContain("q2");
        browser.findElement(By.id("f-text")).sendKeys("count");
        assertThat(count()).startsWith("0 rows shown");
        shot(label + "-items");

        browser.get(root + "item/0.html");
        String page = browser.findElement(By.tagName("main")).getText();
        assertThat(page).contains("Which cities have offices?").contains("SELECT city FROM offices")
                .contains(XSS_SQL);
        browser.findElements(By.tagName("details")).forEach(d -> d.findElement(By.tagName("summary")).click());
        assertThat(browser.findElements(By.cssSelector(".step"))).hasSizeGreaterThanOrEqualTo(6);
        assertThat(browser.findElement(By.tagName("main")).getText()).contains("<script>window.__xss = 'output'</script>");
        // nothing the model wrote ran
        Object xss = ((JavascriptExecutor) browser).executeScript("return window.__xss === undefined ? 'none' : String(window.__xss)");
        assertThat(xss).isEqualTo("none");
        assertThat(browser.findElement(By.id("diff")).getText()).contains("town").contains("onerror");
        shot(label + "-item");
    }

    @Test
    void theServedPagesFilterShowTracesAndRunNothingTheModelWrote() throws Exception {
        try (ViewServer server = ViewServer.start(viewer.pages(), 0)) {
            assertThat(server.url()).startsWith("http://127.0.0.1:");
            browse(server.url(), "served");
            browser.get(server.url() + "nope.html");
            assertThat(browser.getPageSource()).contains("no page /nope.html");
        }
    }

    @Test
    void theExportedFolderWorksFromFiles() throws Exception {
        Path out = tmp.resolve("export");
        viewer.export(out);
        assertThat(out.resolve("index.html")).exists();
        browse(out.toUri().toString(), "export");
    }

    @Test
    void pagesAreSmallAndFast() {
        long bytes = viewer.pages().values().stream().mapToLong(b -> b.length).sum();
        assertThat(bytes).isLessThan(2_000_000);
        assertThat(new String(viewer.pages().get("items.html"), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("<script>window.__xss").doesNotContain("<img src=x");
    }

    /**
     * A run of 200 questions × 8 rungs with full traces: the weight of each page kind and the browser's time to first
     * render, printed for docs/view.md (no timing is asserted).
     */
    @Test
    void aFullSizeRunStaysLight() throws Exception {
        Path run = tmp.resolve("big");
        RunDirectory dir = RunDirectory.create(run);
        try (ResultsStore s = dir.openResults()) {
            for (int r = 0; r < 8; r++) {
                Cell c = new Cell(r, "rung-" + r, "m", "", "agent-" + Math.min(r, 3), 0);
                s.putCell(c);
                for (int i = 0; i < 200; i++) {
                    String sql = "SELECT city, country FROM offices WHERE officeCode = '" + (i % 7) + "' ORDER BY city LIMIT " + r;
                    s.put(row(c.name(), "q" + i, "Question number " + i + " about the offices of the company?", sql,
                            (i + r) % 3 == 0, (i + r) % 3 == 0 ? "correct" : "wrong-filter"), i, trace("q" + i, c.strategy(), sql, sql));
                }
            }
        }
        long t0 = System.nanoTime();
        RunViewer big = RunViewer.of(List.of(run));
        double renderSeconds = (System.nanoTime() - t0) / 1e9;
        long total = big.pages().values().stream().mapToLong(b -> b.length).sum();
        int items = big.pages().get("items.html").length;
        int item = big.pages().get("item/0.html").length;
        assertThat(big.pages()).hasSize(202);
        assertThat(items).isLessThan(2_000_000);
        assertThat(item).isLessThan(200_000);
        try (ViewServer server = ViewServer.start(big.pages(), 0)) {
            StringBuilder report = new StringBuilder(String.format(java.util.Locale.ROOT,
                    "ladder view, 200 items x 8 rungs: %d pages, %.1f MB in all, rendered in %.1f s%n", big.pages().size(),
                    total / 1e6, renderSeconds));
            for (String page : List.of("index.html", "items.html", "item/0.html")) {
                browser.get(server.url() + page);
                Object ms = ((JavascriptExecutor) browser).executeScript(
                        "const n = performance.getEntriesByType('navigation')[0]; return Math.round(n.domContentLoadedEventEnd);");
                report.append(String.format(java.util.Locale.ROOT, "  %-12s %8.1f KB, first render after %s ms%n", page,
                        big.pages().get(page).length / 1e3, ms));
                if (page.equals("items.html")) assertThat(count()).isEqualTo("1600 rows shown (200 items) of 1600");
            }
            System.out.print(report);
            Files.writeString(SHOTS.resolve("full-size-run.txt"), report.toString());
        }
    }
}
