package dev.ladder.scorer.bench.fetch;

import dev.ladder.common.FileTrees;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Fetches one recipe into {@code <home>/<name>}: the archive is downloaded (or resumed, or taken from
 * {@code <home>/<file>} where it was put by hand) and checked, unpacked into a hidden temporary folder beside the
 * target and renamed into place, so that a stop at any instant leaves either no folder or the whole one. The
 * archive is removed once the folder is in place.
 */
public final class BenchmarkFetch {

    /** What a fetch did. */
    public record Result(FetchRecipe recipe, Path dir, long size, String sha256, String check, boolean alreadyThere,
                         boolean resumed) {}

    private final Path home;
    private final String mirror;

    /**
     * @param home   where folders are laid out ({@link FetchedBenchmarks#home()} outside tests)
     * @param mirror a base URL serving every archive as {@code <mirror>/<file>}, or null for the official addresses
     */
    public BenchmarkFetch(Path home, String mirror) {
        this.home = home;
        this.mirror = mirror == null || mirror.isBlank() ? null : mirror.replaceAll("/+$", "");
    }

    /** The mirror of {@code LADDER_BENCHMARK_MIRROR} (system property {@code ladder.benchmark.mirror}), if set. */
    public static Optional<String> environmentMirror() {
        String prop = System.getProperty("ladder.benchmark.mirror");
        if (prop != null && !prop.isBlank()) return Optional.of(prop);
        String env = System.getenv("LADDER_BENCHMARK_MIRROR");
        return env == null || env.isBlank() ? Optional.empty() : Optional.of(env);
    }

    /** The address {@code recipe}'s archive is downloaded from. */
    public URI source(FetchRecipe recipe) {
        String url = mirror == null ? recipe.url() : mirror + "/" + recipe.file();
        try {
            return URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new UserError(recipe.name() + ": '" + url + "' is not a valid URL (check --mirror or LADDER_BENCHMARK_MIRROR)");
        }
    }

    /** Lays out {@code recipe}; an existing folder is kept unless {@code again}, then it is replaced as one rename. */
    public Result fetch(FetchRecipe recipe, boolean again) {
        String name = recipe.name();
        Path dest = home.resolve(name);
        try {
            Files.createDirectories(home);
        } catch (IOException e) {
            throw new UserError(name + ": cannot make " + home + ": " + FetchRecipes.firstLine(e), e);
        }
        try (FileChannel lockFile = FileChannel.open(home.resolve("." + name + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = tryLock(lockFile, name)) {
            if (Files.isDirectory(dest) && !again) return existing(recipe, dest);
            removeLeftovers(name);
            Recorded recorded = Recorded.read(home, recipe);
            Long size = recipe.size() != null ? recipe.size() : recorded == null ? null : recorded.size();
            String sha = recipe.sha256() != null ? recipe.sha256() : recorded == null ? null : recorded.sha256();
            Path archive = home.resolve(recipe.file());
            ArchiveDownload.Verified v = Files.isRegularFile(archive)
                    ? ArchiveDownload.checkPlaced(name, archive, size, sha)
                    : new ArchiveDownload(name, source(recipe), archive, size, sha).fetch();
            String check = recipe.sha256() != null ? "pinned SHA-256" : recorded != null
                    ? "SHA-256 recorded on the first download" : "no pinned SHA-256: recorded now in " + Recorded.file(home, recipe);
            layOut(recipe, v, check, dest);
            if (recipe.sha256() == null && recorded == null) Recorded.write(home, recipe, v);
            Files.deleteIfExists(archive);
            return new Result(recipe, dest, v.size(), v.sha256(), check, false, v.resumed());
        } catch (IOException e) {
            throw new UserError(name + ": " + FetchRecipes.firstLine(e) + " (in " + home + ")", e);
        }
    }

    private static FileLock tryLock(FileChannel channel, String name) throws IOException {
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) return lock;
        } catch (OverlappingFileLockException e) {
            // held by this process
        }
        throw new UserError(name + ": another fetch of it is running; wait for it to finish");
    }

    private Result existing(FetchRecipe recipe, Path dest) {
        Properties p = provenance(dest);
        return new Result(recipe, dest, Long.parseLong(p.getProperty("size", "-1")), p.getProperty("sha256", ""),
                p.getProperty("check", ""), true, false);
    }

    /** The provenance file of a laid-out folder, or empty properties. */
    public static Properties provenance(Path dir) {
        Properties p = new Properties();
        Path file = dir.resolve(FetchedBenchmarks.PROVENANCE);
        if (Files.isRegularFile(file)) {
            try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(in);
            } catch (IOException e) {
                // no provenance to show; the folder itself is whole
            }
        }
        return p;
    }

    /** Unpacks into a hidden folder beside {@code dest}, writes the provenance there, then renames it into place. */
    private void layOut(FetchRecipe recipe, ArchiveDownload.Verified v, String check, Path dest) throws IOException {
        Path temp = Files.createTempDirectory(home, "." + recipe.name() + ".tmp-");
        Path old = null;
        try {
            ArchiveLayout.unpack(recipe.name(), recipe.layout(), v.archive(), temp);
            writeProvenance(temp, recipe, v, check);
            if (Files.exists(dest)) {
                old = home.resolve("." + recipe.name() + ".old-" + System.nanoTime());
                Files.move(dest, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(temp, dest, StandardCopyOption.ATOMIC_MOVE);
            temp = null;
        } catch (IOException e) {
            throw new UserError(recipe.name() + ": cannot lay out " + dest + " (" + FetchRecipes.firstLine(e)
                    + "); nothing was laid out, the checked archive is kept at " + v.archive() + " for the next try", e);
        } finally {
            if (temp != null) FileTrees.deleteQuietly(temp);
            if (old != null) FileTrees.deleteQuietly(old);
        }
    }

    private static void writeProvenance(Path dir, FetchRecipe recipe, ArchiveDownload.Verified v, String check)
            throws IOException {
        Properties p = new Properties();
        p.setProperty("name", recipe.name());
        p.setProperty("what", recipe.what());
        p.setProperty("archive", recipe.file());
        p.setProperty("url", recipe.url());
        p.setProperty("page", recipe.page());
        p.setProperty("license", recipe.license());
        p.setProperty("size", Long.toString(v.size()));
        p.setProperty("sha256", v.sha256());
        p.setProperty("check", check);
        p.setProperty("fetched", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        try (OutputStream out = Files.newOutputStream(dir.resolve(FetchedBenchmarks.PROVENANCE))) {
            p.store(out, "what 'ladder bench fetch " + recipe.name() + "' laid out here");
        }
    }

    /** Hidden folders of a fetch of {@code name} that stopped before its rename (or before removing the old folder). */
    private void removeLeftovers(String name) throws IOException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(home, "." + name + ".{tmp,old}-*")) {
            for (Path p : s) FileTrees.deleteQuietly(p);
        }
    }

    /**
     * The size and SHA-256 of an archive without pinned ones, recorded on its first download in
     * {@code <home>/<name>.sha256} ({@code <sha256>  <size>  <file>}); later fetches must match them.
     */
    record Recorded(String sha256, long size) {

        static Path file(Path home, FetchRecipe recipe) {
            return home.resolve(recipe.name() + ".sha256");
        }

        static Recorded read(Path home, FetchRecipe recipe) throws IOException {
            Path f = file(home, recipe);
            if (!Files.isRegularFile(f)) return null;
            List<String> fields = List.of(Files.readString(f, StandardCharsets.UTF_8).strip().split("\\s+"));
            if (fields.size() < 2 || !fields.get(0).matches("[0-9a-f]{64}") || !fields.get(1).matches("\\d+")) {
                throw new UserError(recipe.name() + ": " + f + " is not '<sha256>  <size>  <file>'; remove it to record"
                        + " the next download's instead");
            }
            return new Recorded(fields.get(0), Long.parseLong(fields.get(1)));
        }

        static void write(Path home, FetchRecipe recipe, ArchiveDownload.Verified v) throws IOException {
            Path f = file(home, recipe);
            Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
            Files.writeString(tmp, v.sha256() + "  " + v.size() + "  " + recipe.file() + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
