package dev.ladder.eval.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.CategoryLineAnnotation;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.Axis;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.Plot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.PaintScale;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.DefaultXYZDataset;
import org.jfree.svg.SVGGraphics2D;
import tech.tablesaw.api.NumericColumn;

/**
 * The report's charts: EX by rung with interval bars, and a category-by-rung heat map of EX. Sizes, fonts, colours
 * and number formats are fixed, so the same report draws the same chart.
 */
final class Charts {

    static {
        // charts render off-screen; must be set before the first AWT class asks whether there is a display
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    /** A chart to write: {@code name.svg} and {@code name.png} at a fixed pixel size. */
    record Chart(String name, JFreeChart chart, int width, int height) {
    }

    private static final String FAMILY = Font.SANS_SERIF;
    private static final Font TITLE = new Font(FAMILY, Font.BOLD, 14);
    private static final Font LABEL = new Font(FAMILY, Font.PLAIN, 12);
    private static final Font TICK = new Font(FAMILY, Font.PLAIN, 11);
    private static final Color BAR = new Color(0x4C72B0);
    private static final Color GRID = new Color(0xDDDDDD);
    private static final Color LIGHT = new Color(0xF7FBFF);
    private static final Color DARK = new Color(0x08306B);
    private static final Color NO_DATA = new Color(0xE0E0E0);

    private Charts() {
    }

    /** Every chart of the report. */
    static List<Chart> all(Report report) {
        return List.of(exByRung(report), categoryHeatMap(report));
    }

    static Chart exByRung(Report report) {
        ReportTable summary = report.summary();
        DefaultCategoryDataset ex = new DefaultCategoryDataset();
        DefaultCategoryDataset ends = new DefaultCategoryDataset();
        // a mark at the value itself: with EX 0 there is no bar, and whiskers alone do not say where the value is
        DefaultCategoryDataset marks = new DefaultCategoryDataset();
        List<String> rungs = report.rungs();
        List<CategoryLineAnnotation> whiskers = new ArrayList<>();
        for (int i = 0; i < rungs.size(); i++) {
            String rung = rungs.get(i);
            double value = number(summary, i, "EX");
            double lo = number(summary, i, "EX" + ReportTable.LOWER);
            double hi = number(summary, i, "EX" + ReportTable.UPPER);
            ex.addValue(Double.isNaN(value) ? null : value, "EX", rung);
            marks.addValue(Double.isNaN(value) ? null : value, "value", rung);
            ends.addValue(Double.isNaN(lo) ? null : lo, "lower", rung);
            ends.addValue(Double.isNaN(hi) ? null : hi, "upper", rung);
            if (!Double.isNaN(lo)) {
                whiskers.add(new CategoryLineAnnotation(rung, lo, rung, hi, Color.BLACK, new BasicStroke(1.2f)));
            }
        }
        CategoryAxis x = new CategoryAxis("rung");
        style(x);
        boolean crowded = rungs.size() > 5 || rungs.stream().anyMatch(r -> r.length() > 12);
        if (crowded) x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        NumberAxis y = unitAxis("EX (95% CI)");
        y.setRange(0.0, 1.04); // room for a cap at 1.0

        BarRenderer bars = new BarRenderer();
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setDrawBarOutline(false);
        bars.setSeriesPaint(0, BAR);
        bars.setMaximumBarWidth(0.12);

        // interval ends drawn as short horizontal caps; the annotations join them
        LineAndShapeRenderer caps = new LineAndShapeRenderer(false, true);
        Rectangle2D cap = new Rectangle2D.Double(-7, -0.75, 14, 1.5);
        for (int s = 0; s < 2; s++) {
            caps.setSeriesShape(s, cap);
            caps.setSeriesPaint(s, Color.BLACK);
        }

        LineAndShapeRenderer dots = new LineAndShapeRenderer(false, true);
        dots.setSeriesShape(0, new Ellipse2D.Double(-3.5, -3.5, 7, 7));
        dots.setSeriesPaint(0, Color.BLACK);

        CategoryPlot plot = new CategoryPlot(ex, x, y, bars);
        plot.setDataset(1, ends);
        plot.setRenderer(1, caps);
        plot.setDataset(2, marks);
        plot.setRenderer(2, dots);
        plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
        whiskers.forEach(plot::addAnnotation);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(GRID);
        plot.setOutlineVisible(false);

        int width = Math.max(480, 120 + 70 * rungs.size());
        return new Chart("ex-by-rung", chart("EX by rung", plot), width, crowded ? 480 : 420);
    }

    static Chart categoryHeatMap(Report report) {
        ReportTable table = report.categoryEx();
        List<String> rungs = report.rungs();
        int rows = table.rowCount();
        String[] categories = new String[rows];
        for (int r = 0; r < rows; r++) categories[r] = table.data().stringColumn("category").get(r);
        int n = rows * rungs.size();
        double[] xs = new double[n];
        double[] ys = new double[n];
        double[] zs = new double[n];
        List<XYTextAnnotation> labels = new ArrayList<>();
        int k = 0;
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < rungs.size(); c++, k++) {
                double value = number(table, r, rungs.get(c));
                xs[k] = c;
                ys[k] = r;
                zs[k] = value;
                XYTextAnnotation label = new XYTextAnnotation(Style.PROPORTION.display(value), c, r);
                label.setFont(TICK);
                label.setPaint(!Double.isNaN(value) && value > 0.6 ? Color.WHITE : Color.BLACK);
                label.setTextAnchor(TextAnchor.CENTER);
                labels.add(label);
            }
        }
        DefaultXYZDataset data = new DefaultXYZDataset();
        data.addSeries("EX", new double[][] {xs, ys, zs});

        SymbolAxis x = new SymbolAxis("rung", rungs.toArray(String[]::new));
        SymbolAxis y = new SymbolAxis("category", categories);
        for (SymbolAxis axis : List.of(x, y)) {
            style(axis);
            axis.setGridBandsVisible(false);
            axis.setAutoRange(false);
        }
        x.setRange(-0.5, Math.max(rungs.size(), 1) - 0.5);
        y.setRange(-0.5, Math.max(rows, 1) - 0.5);
        y.setInverted(true);
        boolean crowded = rungs.size() > 5 || rungs.stream().anyMatch(r -> r.length() > 12);
        if (crowded) x.setVerticalTickLabels(true);

        BlueScale scale = new BlueScale();
        XYBlockRenderer blocks = new XYBlockRenderer();
        blocks.setBlockWidth(1);
        blocks.setBlockHeight(1);
        blocks.setBlockAnchor(RectangleAnchor.CENTER);
        blocks.setPaintScale(scale);

        XYPlot plot = new XYPlot(data, x, y, blocks);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinesVisible(false);
        plot.setRangeGridlinesVisible(false);
        plot.setOutlineVisible(false);
        labels.forEach(plot::addAnnotation);

        JFreeChart chart = chart("EX by category and rung", plot);
        PaintScaleLegend legend = new PaintScaleLegend(scale, unitAxis("EX"));
        legend.setPosition(RectangleEdge.RIGHT);
        legend.setAxisLocation(AxisLocation.TOP_OR_RIGHT);
        legend.setMargin(new RectangleInsets(8, 8, 8, 8));
        legend.setStripWidth(12);
        legend.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(legend);

        int width = Math.max(480, 220 + 90 * rungs.size());
        int height = Math.max(280, (crowded ? 200 : 140) + 40 * rows);
        return new Chart("category-ex", chart, width, height);
    }

    /** The chart as an SVG document; element ids use a fixed prefix instead of JFreeSVG's clock-based one. */
    static String svg(Chart c) {
        SVGGraphics2D g = new SVGGraphics2D(c.width(), c.height());
        g.setDefsKeyPrefix("ladder-" + c.name() + "-");
        c.chart().draw(g, new Rectangle2D.Double(0, 0, c.width(), c.height()));
        return g.getSVGDocument() + "\n";
    }

    /** The chart as PNG bytes (RGB, no alpha). */
    static byte[] png(Chart c) throws IOException {
        BufferedImage image = c.chart().createBufferedImage(c.width(), c.height(), BufferedImage.TYPE_INT_RGB, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (!ImageIO.write(image, "png", out)) throw new IOException("no PNG writer available");
        return out.toByteArray();
    }

    private static JFreeChart chart(String title, Plot plot) {
        JFreeChart chart = new JFreeChart(title, TITLE, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.setAntiAlias(true);
        chart.setTextAntiAlias(true);
        TextTitle t = chart.getTitle();
        t.setPaint(Color.BLACK);
        t.setPadding(new RectangleInsets(6, 4, 4, 4));
        return chart;
    }

    private static NumberAxis unitAxis(String label) {
        NumberAxis axis = new NumberAxis(label);
        style(axis);
        axis.setAutoRange(false);
        axis.setRange(0.0, 1.0);
        // an explicit ROOT format: the default tick units follow the JVM's locale (0,5 in some)
        axis.setTickUnit(new NumberTickUnit(0.2, new DecimalFormat("0.0", DecimalFormatSymbols.getInstance(Locale.ROOT))));
        return axis;
    }

    private static void style(Axis axis) {
        axis.setLabelFont(LABEL);
        axis.setTickLabelFont(TICK);
        axis.setLabelPaint(Color.BLACK);
        axis.setTickLabelPaint(Color.BLACK);
    }

    private static double number(ReportTable table, int row, String column) {
        NumericColumn<?> c = table.data().numberColumn(column);
        return c.isMissing(row) ? Double.NaN : c.getDouble(row);
    }

    /** Linear from near-white (0) to dark blue (1); light grey for a missing value. */
    private static final class BlueScale implements PaintScale {
        @Override
        public double getLowerBound() {
            return 0;
        }

        @Override
        public double getUpperBound() {
            return 1;
        }

        @Override
        public Paint getPaint(double value) {
            if (Double.isNaN(value)) return NO_DATA;
            double t = Math.max(0, Math.min(1, value));
            return new Color(mix(LIGHT.getRed(), DARK.getRed(), t), mix(LIGHT.getGreen(), DARK.getGreen(), t),
                    mix(LIGHT.getBlue(), DARK.getBlue(), t));
        }

        private static int mix(int from, int to, double t) {
            return (int) Math.round(from + (to - from) * t);
        }
    }
}
