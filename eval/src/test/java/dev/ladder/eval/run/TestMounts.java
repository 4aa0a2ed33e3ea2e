package dev.ladder.eval.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs for fault tests: a real full disk, a real read-only file system. Mounting needs root (or
 * CAP_SYS_ADMIN); where it is refused, {@link #tmpfs} is empty and the test that needs one is skipped.
 */
public final class TestMounts implements AutoCloseable {

    private final Path dir;

    private TestMounts(Path dir) {
        this.dir = dir;
    }

    /** A tmpfs of {@code size} (mount's syntax: {@code 64k}) at {@code dir}, created when missing. */
    public static Optional<TestMounts> tmpfs(Path dir, String size) throws IOException {
        Files.createDirectories(dir);
        return mount("-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString())
                ? Optional.of(new TestMounts(dir)) : Optional.empty();
    }

    public Path dir() {
        return dir;
    }

    /** Nothing on it can be written from now on (root included). */
    public void readOnly() {
        if (!mount("-o", "remount,ro", dir.toString())) throw new IllegalStateException("cannot remount " + dir + " read-only");
    }

    /** Grows (or shrinks) it: space freed for a resume. */
    public void resize(String size) {
        if (!mount("-o", "remount,size=" + size, dir.toString())) throw new IllegalStateException("cannot resize " + dir);
    }

    private static boolean mount(String... args) {
        List<String> command = new ArrayList<>(List.of("mount"));
        command.addAll(List.of(args));
        return run(command);
    }

    private static boolean run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false; // no mount command
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        // lazily, so that a file a failed test left open cannot keep the mount
        if (!run(List.of("umount", dir.toString()))) run(List.of("umount", "-l", dir.toString()));
    }
}
