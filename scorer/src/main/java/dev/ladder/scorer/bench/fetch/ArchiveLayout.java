package dev.ladder.scorer.bench.fetch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * Unpacks what a recipe keeps of its archive into an empty folder (the caller renames the folder into place). Where
 * in the archive things are is found, not assumed (a top folder such as {@code spider_data/} or
 * {@code dev_20240627/}, macOS resource forks left out): the folder of {@code dev.json}, the databases its items
 * name, and for BIRD the zip of databases inside the zip.
 */
final class ArchiveLayout {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code <prefix><db>/<db>.sqlite}: a database folder in Spider's and the test suite's layout. */
    private static final Pattern DATABASE = Pattern.compile("(.*/)?([^/]+)/\\2\\.sqlite");

    private final String label;
    private final Path archive;
    private final Path into;

    private ArchiveLayout(String label, Path archive, Path into) {
        this.label = label;
        this.archive = archive;
        this.into = into;
    }

    /** Unpacks {@code archive} as {@code layout} into the empty folder {@code into}. */
    static void unpack(String label, FetchRecipe.Layout layout, Path archive, Path into) throws IOException {
        ArchiveLayout l = new ArchiveLayout(label, archive, into);
        try (ZipFile zip = open(label, archive)) {
            switch (layout) {
                case SPIDER_DEV -> l.spider(zip);
                case BIRD_DEV -> l.bird(zip);
                case SUITE -> l.suite(zip);
            }
        }
    }

    private static ZipFile open(String label, Path archive) throws IOException {
        try {
            return new ZipFile(archive.toFile());
        } catch (ZipException e) {
            throw new UserError(label + ": " + archive + " is not a readable zip archive (" + FetchRecipes.firstLine(e)
                    + "); remove it and run the fetch again");
        }
    }

    private void spider(ZipFile zip) throws IOException {
        String root = rootOf(zip, "dev.json");
        Set<String> dbs = databasesOf(zip, root + "dev.json", "db_id");
        Map<ZipEntry, String> keep = new LinkedHashMap<>();
        keep.put(required(zip, root + "dev.json"), "dev.json");
        keep.put(required(zip, root + "tables.json"), "tables.json");
        optional(zip, root + "dev_gold.sql").ifPresent(e -> keep.put(e, "dev_gold.sql"));
        // Spider's train split (as split "train": the k-shot rungs and the pipelines take their exemplars from it)
        Optional<ZipEntry> train = optional(zip, root + "train_spider.json");
        if (train.isPresent()) {
            keep.put(train.get(), "train.json");
            dbs.addAll(databasesOf(zip, root + "train_spider.json", "db_id"));
            optional(zip, root + "train_gold.sql").ifPresent(e -> keep.put(e, "train_gold.sql"));
        }
        for (String db : dbs) keep.putAll(databaseFolder(zip, root + "database/", db, "database/"));
        extract(zip, keep);
    }

    private void bird(ZipFile zip) throws IOException {
        String root = rootOf(zip, "dev.json");
        Set<String> dbs = databasesOf(zip, root + "dev.json", "db_id");
        Map<ZipEntry, String> keep = new LinkedHashMap<>();
        keep.put(required(zip, root + "dev.json"), "dev.json");
        keep.put(required(zip, root + "dev_tables.json"), "dev_tables.json");
        for (String optional : List.of("dev.sql", "dev_tied_append.json")) {
            optional(zip, root + optional).ifPresent(e -> keep.put(e, optional));
        }
        Optional<ZipEntry> nested = optional(zip, root + "dev_databases.zip");
        if (nested.isEmpty()) {
            // an archive unpacked and zipped again: the databases as folders
            for (String db : dbs) keep.putAll(databaseFolder(zip, prefixOf(zip, db, root), db, "dev_databases/"));
            extract(zip, keep);
            return;
        }
        checkSpace(keep.keySet().stream().mapToLong(ArchiveLayout::sizeOf).sum() + sizeOf(nested.get()) * 2);
        extract(zip, keep);
        Path inner = into.resolve(".dev_databases.zip");
        try (InputStream in = zip.getInputStream(nested.get())) {
            Files.copy(in, inner);
        }
        try (ZipFile databases = open(label, inner)) {
            Map<ZipEntry, String> folders = new LinkedHashMap<>();
            for (String db : dbs) folders.putAll(databaseFolder(databases, prefixOf(databases, db, ""), db, "dev_databases/"));
            extract(databases, folders);
        } finally {
            Files.deleteIfExists(inner);
        }
    }

    /** The archive is not what the recipe expects: one line naming it and what to do. */
    private UserError wrong(String what) {
        return new UserError(label + ": " + archive + " " + what + " (is it the right archive? remove it and run the fetch"
                + " again); nothing was laid out");
    }

    private void suite(ZipFile zip) throws IOException {
        // the folder holding the most <db>/<db>.sqlite databases is the suite's
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (ZipEntry e : entries(zip)) {
            Matcher m = DATABASE.matcher(e.getName());
            if (m.matches()) counts.merge(m.group(1) == null ? "" : m.group(1), 1, Integer::sum);
        }
        String prefix = counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElseThrow(() -> wrong("holds no <db_id>/<db_id>.sqlite databases"));
        Map<ZipEntry, String> keep = new LinkedHashMap<>();
        for (ZipEntry e : entries(zip)) {
            if (e.getName().startsWith(prefix) && e.getName().length() > prefix.length()) {
                keep.put(e, e.getName().substring(prefix.length()));
            }
        }
        extract(zip, keep);
    }

    /** Every file entry but macOS's resource forks. */
    private static List<ZipEntry> entries(ZipFile zip) {
        List<ZipEntry> list = new ArrayList<>();
        zip.stream().filter(e -> !e.isDirectory() && !e.getName().startsWith("__MACOSX/") && !e.getName().contains("/._"))
                .forEach(list::add);
        return list;
    }

    /** The folder (with its trailing slash, or "") of the shallowest entry named {@code file}. */
    private String rootOf(ZipFile zip, String file) {
        return entries(zip).stream().map(ZipEntry::getName)
                .filter(n -> n.equals(file) || n.endsWith("/" + file))
                .min(Comparator.comparingInt(n -> n.split("/").length))
                .map(n -> n.substring(0, n.length() - file.length()))
                .orElseThrow(() -> wrong("has no " + file));
    }

    private ZipEntry required(ZipFile zip, String name) {
        return optional(zip, name).orElseThrow(() -> wrong("has no " + name));
    }

    private static Optional<ZipEntry> optional(ZipFile zip, String name) {
        ZipEntry e = zip.getEntry(name);
        return e == null || e.isDirectory() ? Optional.empty() : Optional.of(e);
    }

    /** The distinct values of {@code field} in the question file {@code name}, in file order. */
    private Set<String> databasesOf(ZipFile zip, String name, String field) throws IOException {
        JsonNode root;
        try (InputStream in = zip.getInputStream(required(zip, name))) {
            root = JSON.readTree(in);
        } catch (JsonProcessingException e) {
            throw wrong("has a " + name + " that is not valid JSON (" + FetchRecipes.firstLine(e) + ")");
        }
        Set<String> dbs = new LinkedHashSet<>();
        if (root != null && root.isArray()) root.forEach(q -> dbs.add(q.path(field).asText("")));
        dbs.remove("");
        if (dbs.isEmpty()) throw wrong("has a " + name + " that names no database (" + field + ")");
        for (String db : dbs) {
            if (!db.matches("[A-Za-z0-9_.-]+") || db.startsWith(".")) {
                throw wrong("has a " + name + " naming a database '" + db + "' that is no folder name");
            }
        }
        return dbs;
    }

    /** The shallowest {@code P} under {@code root} with {@code P<db>/<db>.sqlite} in the archive. */
    private String prefixOf(ZipFile zip, String db, String root) {
        String tail = db + "/" + db + ".sqlite";
        return entries(zip).stream().map(ZipEntry::getName)
                .filter(n -> n.startsWith(root) && (n.equals(tail) || n.endsWith("/" + tail)))
                .min(Comparator.comparingInt(String::length))
                .map(n -> n.substring(0, n.length() - tail.length()))
                .orElseThrow(() -> wrong("has no database " + tail));
    }

    /** Every file of {@code <prefix><db>/}, to be written under {@code <to><db>/}; the SQLite file must be there. */
    private Map<ZipEntry, String> databaseFolder(ZipFile zip, String prefix, String db, String to) {
        String folder = prefix + db + "/";
        required(zip, folder + db + ".sqlite");
        Map<ZipEntry, String> files = new LinkedHashMap<>();
        for (ZipEntry e : entries(zip)) {
            if (e.getName().startsWith(folder)) files.put(e, to + db + "/" + e.getName().substring(folder.length()));
        }
        return files;
    }

    private void extract(ZipFile zip, Map<ZipEntry, String> files) throws IOException {
        checkSpace(files.keySet().stream().mapToLong(ArchiveLayout::sizeOf).sum());
        for (Map.Entry<ZipEntry, String> f : files.entrySet()) {
            Path out = into.resolve(f.getValue()).normalize();
            if (!out.startsWith(into) || f.getValue().contains("\\")) {
                throw wrong("has an entry " + f.getKey().getName() + " that points outside its folder");
            }
            Files.createDirectories(out.getParent());
            try (InputStream in = zip.getInputStream(f.getKey())) {
                Files.copy(in, out);
            }
        }
    }

    private static long sizeOf(ZipEntry e) {
        return Math.max(0, e.getSize());
    }

    private void checkSpace(long bytes) throws IOException {
        long free = Files.getFileStore(into).getUsableSpace();
        if (free < bytes) {
            throw new UserError(label + ": not enough free space in " + into.getParent() + " to unpack ("
                    + ArchiveDownload.megabytes(bytes) + " needed, " + ArchiveDownload.megabytes(free)
                    + " free); nothing was laid out");
        }
    }
}
