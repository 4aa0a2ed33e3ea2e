package dev.ladder.inference.llm;

import dev.ladder.inference.model.DirectBuffers;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class HostMemoryTest {

    @Test
    void readsKilobyteFieldsOfProcStatus() {
        List<String> status = List.of("Name:\tjava", "VmHWM:\t  15131332 kB", "RssAnon:\t 10215760 kB",
                "RssFile:\t  4915636 kB", "Threads:\t42", "Odd:\t12 MB");
        assertThat(HostMemory.field(status, "VmHWM")).isEqualTo(15131332L * 1024);
        assertThat(HostMemory.field(status, "RssAnon")).isEqualTo(10215760L * 1024);
        assertThat(HostMemory.field(status, "Rss")).isEqualTo(-1);          // a prefix of a key is not the key
        assertThat(HostMemory.field(status, "Threads")).isEqualTo(-1);      // no unit
        assertThat(HostMemory.field(status, "Odd")).isEqualTo(-1);
        assertThat(HostMemory.field(status, "Missing")).isEqualTo(-1);
    }

    @Test
    void samplerSeesADirectBufferAndFreeingReturnsItAtOnce() {
        assumeTrue(HostMemory.rssAnonBytes() > 0, "needs /proc/self/status");
        assumeTrue(DirectBuffers.supported());
        long size = 128L << 20;
        try (HostMemory.PeakSampler s = HostMemory.sampler(Duration.ofMillis(5))) {
            ByteBuffer b = ByteBuffer.allocateDirect((int) size);
            for (int i = 0; i < size; i += 4096) b.put(i, (byte) 1);   // touch every page
            long held = s.sample();
            DirectBuffers.free(b);
            long after = HostMemory.rssAnonBytes();
            assertThat(s.peakBytes()).isGreaterThanOrEqualTo(held);
            assertThat(held - s.startBytes()).isGreaterThan(size * 3 / 4);
            // without free() the memory would stay until a garbage collection
            assertThat(held - after).isGreaterThan(size * 3 / 4);
        }
        assertThat(HostMemory.peakRssBytes()).isPositive();
    }
}
