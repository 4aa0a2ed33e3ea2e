package dev.ladder.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
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

    @Test
    void orphansAreTheFoldersOfGoneOrReusedPidsOnly() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long me = ProcessHandle.current().pid();
        Path dead = Files.createDirectories(tmp.resolve(".out.merge-" + gone.pid() + "-1"));
        Files.writeString(dead.resolve("results.sqlite"), "half");
        Path live = Files.createDirectories(tmp.resolve(".out.merge-" + me + "-2"));
        // this pid's process started long after the folder last changed: the pid was reused, the writer is gone
        Path reused = Files.createDirectories(tmp.resolve(".out.merge-" + me + "-3"));
        Files.setLastModifiedTime(reused, FileTime.from(ProcessHandle.current().info().startInstant().orElseThrow()
                .minus(Duration.ofHours(1))));
        Path unreadable = Files.createDirectories(tmp.resolve(".out.merge-someone"));
        Path other = Files.createDirectories(tmp.resolve(".other.merge-" + gone.pid() + "-1"));
        Path file = Files.writeString(tmp.resolve(".out.merge-" + gone.pid() + "-4"), "a file, not a staging folder");

        assertThat(FileTrees.deleteOrphans(tmp, ".out.merge-")).containsExactlyInAnyOrder(dead, reused);
        assertThat(dead).doesNotExist();
        assertThat(reused).doesNotExist();
        assertThat(live).isDirectory();
        assertThat(unreadable).isDirectory();
        assertThat(other).isDirectory();
        assertThat(file).isRegularFile();
        assertThat(FileTrees.deleteOrphans(tmp.resolve("absent"), ".out.merge-")).isEmpty();
    }
}
