package dev.ladder.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Processes and threads sharing a cache directory take its lock in turn; a waiter is told once, a dead holder frees it. */
class CacheLockTest {

    @TempDir Path dir;

    /** Holds the lock named by its argument until its standard input closes (the other process of the test). */
    public static final class Holder {
        public static void main(String[] args) throws IOException {
            try (CacheLock lock = CacheLock.acquire(Path.of(args[0]), () -> {})) {
                System.out.println("held");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // until the test closes our input
                }
            }
        }
    }

    @Test
    void anotherProcessHoldingTheLockIsWaitedForAndItsDeathReleasesIt() throws Exception {
        Path file = dir.resolve("sub").resolve("x.lock");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Holder.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("held");
            List<String> told = new CopyOnWriteArrayList<>();
            CountDownLatch waiting = new CountDownLatch(1);
            CompletableFuture<Boolean> taken = CompletableFuture.supplyAsync(() -> {
                try (CacheLock lock = CacheLock.acquire(file, () -> {
                    told.add("waiting");
                    waiting.countDown();
                })) {
                    return lock.waited();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(taken).isNotDone();
            // the holder dies without releasing anything itself: the kernel drops its lock
            holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            assertThat(taken.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(told).containsExactly("waiting");
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void threadsOfOneProcessTakeItInTurnAndAnUncontendedTakeDoesNotWait() throws Exception {
        Path file = dir.resolve("y.lock");
        try (CacheLock first = CacheLock.acquire(file, () -> {})) {
            assertThat(first.waited()).isFalse();
            CountDownLatch waiting = new CountDownLatch(1);
            CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> {
                try (CacheLock lock = CacheLock.acquire(file, waiting::countDown)) {
                    return lock.waited();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(second).isNotDone();
            first.close();
            assertThat(second.get(30, TimeUnit.SECONDS)).isTrue();
        }
        try (CacheLock again = CacheLock.acquire(file, () -> {})) {
            assertThat(again.waited()).isFalse();
        }
    }
}
