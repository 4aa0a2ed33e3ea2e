package dev.ladder.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {

    @TempDir
    Path tmp;

    private static Path tree(Path root) throws IOException {
        Files.createDirectories(root.resolve("a/b/c"));
        Files.writeString(root.resolve("top.txt"), "1");
        Files.writeString(root.resolve("a/b/c/deep.txt"), "2");
        Files.writeString(root.resolve("a/mid.txt"), "3");
        return root;
    }

    @Test
    void deleteRemovesTheDirectoryAndEverythingUnderIt() throws IOException {
        Path root = tree(tmp.resolve("root"));
        FileTrees.delete(root);
        assertThat(root).doesNotExist();
        assertThat(tmp).exists();
    }

    @Test
    void deleteOfAFileOrOfNothing() throws IOException {
        Path file = Files.writeString(tmp.resolve("one.txt"), "x");
        FileTrees.delete(file);
        assertThat(file).doesNotExist();
        FileTrees.delete(tmp.resolve("absent"));
        FileTrees.deleteQuietly(tmp.resolve("absent"));
    }

    @Test
    void aLinkIsRemovedNotFollowed() throws IOException {
        Path outside = tree(tmp.resolve("outside"));
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.createSymbolicLink(root.resolve("link"), outside);
        FileTrees.delete(root);
        assertThat(root).doesNotExist();
        assertThat(outside.resolve("a/b/c/deep.txt")).hasContent("2");
    }

    @Test
    void deleteFailsOnWhatItCannotRemoveAndQuietlyRemovesTheRest() throws IOException {
        Path root = tree(tmp.resolve("root"));
        Path locked = root.resolve("a/b");
        assertThat(locked.toFile().setWritable(false)).isTrue();
        try {
            assumeFalse(Files.isWritable(locked), "running as root: permissions do not stop a delete");
            assertThatThrownBy(() -> FileTrees.delete(root)).isInstanceOf(IOException.class);
            FileTrees.deleteQuietly(root);
            assertThat(root.resolve("top.txt")).doesNotExist();
            assertThat(root.resolve("a/mid.txt")).doesNotExist();
            assertThat(locked.resolve("c/deep.txt")).exists();
        } finally {
            locked.toFile().setWritable(true);
        }
    }
}
