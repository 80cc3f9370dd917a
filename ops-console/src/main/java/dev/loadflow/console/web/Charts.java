package dev.loadflow.console.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Small line charts drawn on the server as SVG: no script and nothing loaded from elsewhere (the
 * console's Content-Security-Policy stays {@code default-src 'self'}). Each chart names itself
 * and says in words what it shows (its SVG title and description), for a screen reader.
 */
public final class Charts {

    /** Distinct on white and on each other, with a contrast of at least 4.5:1 against white. */
    private static final List<String> COLOURS = List.of("#1f5fbf", "#b42318", "#1f7a45", "#6f42c1", "#9a5b00", "#0f6f7a");
    private static final int WIDTH = 440;
    private static final int HEIGHT = 170;
    private static final int LEFT = 50;
    private static final int TOP = 26;
    private static final int BOTTOM = 22;
    private static final int RIGHT = 8;

    private Charts() {
    }

    /** A chart: its id (for its labels), title, what it shows in words, and its SVG. */
    public record Chart(String id, String title, String summary, String svg) {
    }

    static Map<String, double[]> series(String name, long[] values) {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put(name, toDoubles(values));
        return series;
    }

    static double[] toDoubles(long[] values) {
        double[] doubles = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            doubles[i] = values[i];
        }
        return doubles;
    }

    /**
     * Lines over {@code span} (the last hours up to now), one per series, each value one interval
     * of {@code width}; {@code unit} names what a value counts ("events", "s").
     */
    static Chart lines(String id, String title, String unit, Duration span, Duration width, Map<String, double[]> series) {
        double max = 0;
        for (double[] values : series.values()) {
            for (double v : values) {
                max = Math.max(max, v);
            }
        }
        double top = niceCeiling(max);
        StringBuilder svg = new StringBuilder();
        svg.append("<svg class=\"chart\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" role=\"img\" aria-labelledby=\"").append(id).append("-title ").append(id).append("-desc\">");
        String summary = summary(unit, width, series);
        svg.append("<title id=\"").append(id).append("-title\">").append(escape(title)).append("</title>");
        svg.append("<desc id=\"").append(id).append("-desc\">").append(escape(summary)).append("</desc>");
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        // the grid: the top value, half of it, zero
        for (int step = 0; step <= 2; step++) {
            double y = TOP + plotHeight * step / 2.0;
            svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(fmt(y)).append("\" x2=\"").append(WIDTH - RIGHT)
                    .append("\" y2=\"").append(fmt(y)).append("\" stroke=\"#dde1e7\"/>");
            svg.append("<text x=\"").append(LEFT - 4).append("\" y=\"").append(fmt(y + 4)).append("\" text-anchor=\"end\" font-size=\"12\" fill=\"#5b6575\">")
                    .append(escape(number(top * (2 - step) / 2.0, unit))).append("</text>");
        }
        long hours = span.toHours();
        for (long h = 0; h <= hours; h += Math.max(1, hours / 3)) {
            double x = LEFT + plotWidth * (1 - (double) h / hours);
            // the edges' labels stay inside the chart
            String anchor = h == 0 ? "end" : h == hours ? "start" : "middle";
            svg.append("<text x=\"").append(fmt(h == 0 ? WIDTH - RIGHT : h == hours ? LEFT : x)).append("\" y=\"").append(HEIGHT - 6)
                    .append("\" text-anchor=\"").append(anchor).append("\" font-size=\"12\" fill=\"#5b6575\">")
                    .append(h == 0 ? "now" : "−" + h + " h").append("</text>");
        }
        int colour = 0;
        double legendX = LEFT;
        for (Map.Entry<String, double[]> line : series.entrySet()) {
            String stroke = COLOURS.get(colour++ % COLOURS.size());
            double[] values = line.getValue();
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < values.length; i++) {
                double x = LEFT + plotWidth * (i + 0.5) / values.length;
                double y = TOP + plotHeight * (1 - (top == 0 ? 0 : values[i] / top));
                points.append(fmt(x)).append(',').append(fmt(y)).append(' ');
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(stroke).append("\" points=\"")
                    .append(points.toString().strip()).append("\"/>");
            svg.append("<rect x=\"").append(fmt(legendX)).append("\" y=\"8\" width=\"10\" height=\"10\" fill=\"").append(stroke).append("\"/>");
            svg.append("<text x=\"").append(fmt(legendX + 14)).append("\" y=\"17\" font-size=\"12\" fill=\"#1d2330\">")
                    .append(escape(line.getKey())).append("</text>");
            legendX += 24 + 7 * line.getKey().length();
        }
        svg.append("</svg>");
        return new Chart(id, title, summary, svg.toString());
    }

    /** In words: each series' total (or, for seconds, its highest value) over the span. */
    private static String summary(String unit, Duration width, Map<String, double[]> series) {
        List<String> parts = new ArrayList<>();
        String per = width.toMinutes() + " minutes";
        for (Map.Entry<String, double[]> line : series.entrySet()) {
            double total = 0;
            double max = 0;
            for (double v : line.getValue()) {
                total += v;
                max = Math.max(max, v);
            }
            parts.add(unit.equals("s")
                    ? line.getKey() + ": at most " + number(max, unit)
                    : line.getKey() + ": " + number(total, unit) + " in all, at most " + number(max, unit) + " in " + per);
        }
        return parts.isEmpty() ? "nothing in this span" : String.join("; ", parts);
    }

    /** A round number at or above {@code max}, and at least 1: the chart's top line (1, 2 or 5 times a power of ten). */
    static double niceCeiling(double max) {
        if (max <= 1) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[]{1, 2, 5, 10}) {
            if (step * power >= max) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String number(double value, String unit) {
        String n = value == Math.rint(value) ? String.format(Locale.ROOT, "%,d", (long) value) : String.format(Locale.ROOT, "%.1f", value);
        return unit.equals("s") ? n + " s" : n;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
