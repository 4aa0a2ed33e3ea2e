package dev.ladder.inference.store;

import dev.ladder.common.FileTrees;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.TinyModels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The files of a tiny model ({@link TinyModels}, shape TINY, f32) as the fake hub serves them. */
final class TinyRepo {

    private static Map<String, byte[]> single;
    private static Map<String, byte[]> sharded;

    private TinyRepo() {}

    /** config, generation config, tokenizer files and one {@code model.safetensors}. */
    static synchronized Map<String, byte[]> files() {
        if (single == null) single = write(1);
        return single;
    }

    /** The same model in two shards with {@code model.safetensors.index.json}. */
    static synchronized Map<String, byte[]> shardedFiles() {
        if (sharded == null) sharded = write(2);
        return sharded;
    }

    private static Map<String, byte[]> write(int shards) {
        try {
            Path dir = Files.createTempDirectory("tiny-repo");
            try {
                TinyModels.write(dir, TinyModels.Shape.TINY, 1, DType.F32, shards);
                Map<String, byte[]> m = new LinkedHashMap<>();
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path p : s.sorted().toList()) m.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
                return Map.copyOf(m);
            } finally {
                FileTrees.delete(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> names(Map<String, byte[]> files) {
        return files.keySet().stream().sorted().toList();
    }
}
