package dev.ladder.pipeline.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RunCachesTest {

    @Test
    void aReplyServedAgainCountsAsAReuseOnItsThread() throws Exception {
        RunCaches caches = new RunCaches();
        AtomicInteger asked = new AtomicInteger();
        Object model = new Object();
        assertThat(caches.reply(List.of("k", model, "prompt"), () -> "reply " + asked.incrementAndGet())).isEqualTo("reply 1");
        assertThat(caches.repliesReusedOnThisThread()).isZero();
        assertThat(caches.reply(List.of("k", model, "prompt"), () -> "reply " + asked.incrementAndGet())).isEqualTo("reply 1");
        assertThat(caches.repliesReusedOnThisThread()).isEqualTo(1);
        // another model object is another key: asked again, nothing reused
        assertThat(caches.reply(List.of("k", new Object(), "prompt"), () -> "reply " + asked.incrementAndGet())).isEqualTo("reply 2");
        assertThat(caches.repliesReusedOnThisThread()).isEqualTo(1);
        // counts are per thread: an item answered on another thread counts its own reuses
        int[] other = new int[1];
        Thread t = new Thread(() -> {
            caches.reply(List.of("k", model, "prompt"), () -> "never");
            other[0] = caches.repliesReusedOnThisThread();
        });
        t.start();
        t.join();
        assertThat(other[0]).isEqualTo(1);
        assertThat(caches.repliesReusedOnThisThread()).isEqualTo(1);
        assertThat(asked.get()).isEqualTo(2);
    }
}
