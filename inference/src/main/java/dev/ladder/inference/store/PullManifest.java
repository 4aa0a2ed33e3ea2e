package dev.ladder.inference.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code ladder-pull.json}: what a completed pull put in its directory. Written last, so a directory without it holds
 * an unfinished pull.
 *
 * @param repo     hub repo id, {@code owner/name}
 * @param revision the revision asked for (branch, tag or commit)
 * @param commit   the commit the hub resolved it to, or null when the listing did not say
 * @param endpoint the hub it came from
 * @param pulledAt when the pull finished
 * @param files    the files, in download order
 * @param onnxVariant the ONNX export pulled ({@code fp32}, {@code quantized}, ...), or null for none
 * @param onnxFile    its decoder file, relative to the directory (e.g. {@code onnx/model.onnx}), or null
 */
public record PullManifest(String repo, String revision, String commit, String endpoint, Instant pulledAt,
                           List<Entry> files, String onnxVariant, String onnxFile) {

    public static final String FILE_NAME = "ladder-pull.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One file: name in the repo, bytes, lower-case hex SHA-256. */
    public record Entry(String name, long size, String sha256) {}

    public PullManifest {
        files = List.copyOf(files);
    }

    /** The entry for a file name, if listed. */
    public Optional<Entry> entry(String name) {
        return files.stream().filter(e -> e.name().equals(name)).findFirst();
    }

    /** Sum of file sizes. */
    public long totalBytes() {
        return files.stream().mapToLong(Entry::size).sum();
    }

    /** The manifest of a directory, or empty when there is none (or it cannot be read). */
    public static Optional<PullManifest> read(Path dir) {
        Path file = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            JsonNode root = JSON.readTree(file.toFile());
            List<Entry> entries = new ArrayList<>();
            for (JsonNode f : root.path("files")) {
                entries.add(new Entry(f.path("name").asText(), f.path("size").asLong(-1),
                        f.hasNonNull("sha256") ? f.get("sha256").asText() : null));
            }
            Instant at = root.hasNonNull("pulled_at") ? Instant.parse(root.get("pulled_at").asText()) : null;
            JsonNode onnx = root.path("onnx");
            return Optional.of(new PullManifest(root.path("repo").asText(), root.path("revision").asText(),
                    root.hasNonNull("commit") ? root.get("commit").asText() : null,
                    root.path("endpoint").asText(null), at, entries,
                    onnx.hasNonNull("variant") ? onnx.get("variant").asText() : null,
                    onnx.hasNonNull("file") ? onnx.get("file").asText() : null));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Writes {@code dir/ladder-pull.json} atomically (temporary file, then rename). */
    public void write(Path dir) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("repo", repo);
        root.put("revision", revision);
        root.put("commit", commit);
        root.put("endpoint", endpoint);
        root.put("pulled_at", pulledAt == null ? null : pulledAt.toString());
        if (onnxFile != null) root.putObject("onnx").put("variant", onnxVariant).put("file", onnxFile);
        ArrayNode arr = root.putArray("files");
        for (Entry e : files) {
            arr.addObject().put("name", e.name()).put("size", e.size()).put("sha256", e.sha256());
        }
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        Files.write(tmp, JSON.writeValueAsBytes(root));
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
