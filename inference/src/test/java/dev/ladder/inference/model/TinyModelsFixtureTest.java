package dev.ladder.inference.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed reference outputs are only valid for the exact weights they were computed on. A change to the
 * generator (or writer) that alters model.safetensors must fail here: then rerun scripts/reference/make_fixtures.sh.
 */
class TinyModelsFixtureTest {

    @TempDir
    Path tmp;

    @Test
    void regeneratedModelsMatchTheFixtures() throws IOException {
        for (ReferenceFixture f : ReferenceFixture.all()) {
            Path dir = f.writeModel(tmp.resolve(f.name()));
            assertThat(sha256(dir.resolve("model.safetensors")))
                    .as("model.safetensors of %s changed: rerun scripts/reference/make_fixtures.sh", f.name())
                    .isEqualTo(f.modelSha256());
            ModelConfig config = ModelConfig.read(dir);
            assertThat(config).isEqualTo(f.shape().config(f.dtype()));
            assertThat(java.util.Arrays.stream(f.ids()).min().orElseThrow()).isGreaterThanOrEqualTo(0);
            assertThat(java.util.Arrays.stream(f.ids()).max().orElseThrow()).isLessThan(config.vocabSize());
            assertThat(f.logits()).hasNumberOfRows(f.ids().length);
            assertThat(f.logits()[0]).hasSize(config.vocabSize());
            assertThat(f.greedy()).hasSize(8);
            assertThat(f.greedyMargins()).hasSize(8);
            assertThat(java.util.Arrays.stream(f.greedyMargins()).min().orElseThrow()).isGreaterThan(1e-3);
            // the first greedy id is the argmax of the last position's logits
            float[] last = f.logits()[f.ids().length - 1];
            int best = 0;
            for (int i = 1; i < last.length; i++) {
                if (last[i] > last[best]) {
                    best = i;
                }
            }
            assertThat(best).isEqualTo(f.greedy()[0]);
        }
    }

    @Test
    void ropeScaledFixtureReachesPastTheOriginalContext() {
        ReferenceFixture f = ReferenceFixture.load("llama3-rope-scaled-tiny-seed3");
        assertThat(f.ids().length).isGreaterThan(f.shape().config(DType.F32).ropeScaling().originalMaxPositions());
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
