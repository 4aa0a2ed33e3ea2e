package dev.ladder.scorer.bench.fetch;

import java.util.List;
import java.util.Locale;

/**
 * One archive {@code ladder bench fetch} downloads and how it is laid out.
 *
 * @param name    what it lays out, and the name that finds it afterwards ({@code spider-dev}, {@code bird-dev},
 *                {@code spider-ts})
 * @param aliases other names the fetch accepts ({@code spider}, {@code bird})
 * @param what    one line for {@code --list}
 * @param file    the archive's file name: kept under this name while it is laid out, and fetched as
 *                {@code <mirror>/<file>} when a mirror is set
 * @param url     the official address
 * @param page    where the authors link it
 * @param license the data's license
 * @param size    bytes, or null when not pinned
 * @param sha256  lower-case hex, or null when not pinned (then recorded on the first download)
 * @param layout  how the archive becomes the folder
 */
public record FetchRecipe(String name, List<String> aliases, String what, String file, String url, String page,
                          String license, Long size, String sha256, Layout layout) {

    public FetchRecipe {
        aliases = List.copyOf(aliases);
        if (sha256 != null) sha256 = sha256.toLowerCase(Locale.ROOT);
    }

    /** How an archive becomes the laid-out folder (docs/benchmark.md says what each keeps). */
    public enum Layout {
        /**
         * Spider: {@code dev.json}, {@code train.json} (Spider's {@code train_spider.json}), {@code tables.json}, the gold
         * files and {@code database/<db_id>/} of the databases these two splits name.
         */
        SPIDER_DEV("spider-dev", true),
        /** BIRD: {@code dev.json}, {@code dev_tables.json}, {@code dev.sql}, {@code dev_databases/<db_id>/} (from the nested zip). */
        BIRD_DEV("bird-dev", true),
        /** A test-suite database folder: {@code <db_id>/*.sqlite}, the original and its distilled variants. */
        SUITE("suite", false);

        private final String label;
        private final boolean benchmark;

        Layout(String label, boolean benchmark) {
            this.label = label;
            this.benchmark = benchmark;
        }

        public String label() {
            return label;
        }

        /** Whether the folder is a benchmark ({@code benchmark:}) rather than a test suite ({@code scorers.suite:}). */
        public boolean benchmark() {
            return benchmark;
        }

        static Layout parse(String label) {
            for (Layout l : values()) {
                if (l.label.equals(label)) return l;
            }
            throw new IllegalArgumentException("unknown layout '" + label + "'");
        }
    }

    public FetchRecipe withChecks(Long newSize, String newSha256) {
        return new FetchRecipe(name, aliases, what, file, url, page, license, newSize, newSha256, layout);
    }
}
