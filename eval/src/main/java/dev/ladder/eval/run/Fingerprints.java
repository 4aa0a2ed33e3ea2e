package dev.ladder.eval.run;

import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Reproducible identities: of a model or adapter directory (for the generation cache key and the run record) and of
 * the machine and build a run used.
 *
 * <p>Directory rule: the regular files directly in the directory whose names are in {@link #NAMED_FILES} or end with
 * {@code .safetensors}, sorted by name. Each contributes {@code name NUL size NUL sha256 LF}, where sha256 is of the
 * whole content for files up to {@code 3 * 4 MiB}, and for larger files of the first, middle (starting at
 * {@code (size - 4 MiB) / 2}) and last 4 MiB concatenated. The fingerprint is the SHA-256 of those lines, in hex.
 * Modification times and paths are not used, so a copy elsewhere has the same fingerprint. A weights change that
 * leaves the size and all three samples alike goes unnoticed; training changes every tensor, so it does not.
 */
public final class Fingerprints {

    /** Files besides {@code *.safetensors} that decide what a model or adapter generates. */
    public static final Set<String> NAMED_FILES = Set.of("config.json", "generation_config.json",
            "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
            "tokenizer.model", "vocab.json", "merges.txt", "added_tokens.json", "chat_template.jinja",
            "chat_template.json", "adapter_config.json");

    static final int SAMPLE = 4 << 20;

    private Fingerprints() {}

    /**
     * @throws UserError when the directory does not exist or has none of the relevant files
     */
    public static String ofDirectory(Path dir) {
        if (!Files.isDirectory(dir)) throw new UserError("cannot fingerprint " + dir + ": not a directory");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(Files::isRegularFile).filter(p -> relevant(p.getFileName().toString()))
                    .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new UserError("cannot list " + dir + ": " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            throw new UserError("cannot fingerprint " + dir + ": no model or adapter files in it (config.json, "
                    + "adapter_config.json, *.safetensors, tokenizer files)");
        }
        MessageDigest all = sha256();
        for (Path f : files) {
            try {
                long size = Files.size(f);
                String line = f.getFileName() + "\0" + size + "\0" + contentHash(f, size) + "\n";
                all.update(line.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UserError("cannot read " + f + ": " + e.getMessage(), e);
            }
        }
        return HexFormat.of().formatHex(all.digest());
    }

    static boolean relevant(String name) {
        return !name.startsWith(".") && (name.endsWith(".safetensors") || NAMED_FILES.contains(name));
    }

    private static String contentHash(Path f, long size) throws IOException {
        MessageDigest d = sha256();
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            if (size <= 3L * SAMPLE) {
                digest(ch, d, 0, size);
            } else {
                digest(ch, d, 0, SAMPLE);
                digest(ch, d, (size - SAMPLE) / 2, SAMPLE);
                digest(ch, d, size - SAMPLE, SAMPLE);
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static void digest(FileChannel ch, MessageDigest d, long from, long length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        long pos = from;
        long end = from + length;
        while (pos < end) {
            buf.clear();
            buf.limit((int) Math.min(buf.capacity(), end - pos));
            int n = ch.read(buf, pos);
            if (n < 0) throw new IOException("file shrank while being read");
            buf.flip();
            d.update(buf);
            pos += n;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * What a run ran on, sorted by key: {@code git.sha} and {@code git.dirty} (tracked files changed; "unknown"
     * without git or outside a work tree), {@code java.version}, {@code java.vendor}, {@code java.vm}, {@code os.name},
     * {@code os.arch}, {@code os.version}, {@code cpu.processors}, {@code memory.max_heap_bytes},
     * {@code djl.version} and {@code ladder.version}. What libtorch was loaded and which devices it sees is
     * {@link TorchEnvironment}'s (it starts the engine; this does not).
     */
    public static Map<String, String> environment(Path repoRoot) {
        Map<String, String> env = new TreeMap<>();
        String sha = git(repoRoot, "rev-parse", "HEAD");
        env.put("git.sha", sha == null || sha.isBlank() ? "unknown" : sha.strip());
        String status = sha == null ? null : git(repoRoot, "status", "--porcelain", "--untracked-files=no");
        env.put("git.dirty", status == null ? "unknown" : Boolean.toString(!status.isBlank()));
        env.put("java.version", System.getProperty("java.version", "unknown"));
        env.put("java.vendor", System.getProperty("java.vendor", "unknown"));
        env.put("java.vm", System.getProperty("java.vm.name", "unknown") + " " + System.getProperty("java.vm.version", ""));
        env.put("os.name", System.getProperty("os.name", "unknown"));
        env.put("os.arch", System.getProperty("os.arch", "unknown"));
        env.put("os.version", System.getProperty("os.version", "unknown"));
        env.put("cpu.processors", Integer.toString(Runtime.getRuntime().availableProcessors()));
        env.put("memory.max_heap_bytes", Long.toString(Runtime.getRuntime().maxMemory()));
        env.put("djl.version", TorchRuntime.djlVersion());
        env.put("ladder.version", property(Fingerprints.class, "/ladder-version.properties", "version"));
        return Collections.unmodifiableMap(env);
    }

    /** A value from a properties resource on the class path (no class is initialised), or "unknown". */
    private static String property(Class<?> anchor, String resource, String key) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty(key);
            return v == null || v.isBlank() || v.startsWith("${") ? "unknown" : v.strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Stdout of a git command in {@code dir}, or null when git is missing, fails, or hangs. */
    private static String git(Path dir, String... args) {
        List<String> command = new ArrayList<>();
        command.add("git");
        command.addAll(List.of(args));
        Path out = null;
        try {
            // output goes to a file so that neither a full pipe nor a silent hang can block us past the timeout
            out = Files.createTempFile("ladder-git", ".out");
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? Files.readString(out, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a stray temp file is harmless
                }
            }
        }
    }
}
