package dev.ladder.scorer.score.em;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** How EM reads queries: every score table names the mode, as the two give different numbers. */
public enum EmMode {
    /** Ladder's parser: any query JSqlParser reads and the schema resolves (the default). */
    SEMANTIC,
    /**
     * The official Spider verdicts: a pair whose gold or prediction the official {@code process_sql.py}
     * cannot read scores 0 (see {@link SpiderParserCheck}).
     */
    SPIDER_STRICT;

    /** The name on the command line, in YAML and in tables: {@code semantic}, {@code spider-strict}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Optional<EmMode> parse(String s) {
        return Arrays.stream(values()).filter(m -> m.label().equals(s)).findFirst();
    }
}
