package dev.ladder.inference.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import org.junit.jupiter.api.Test;

class DeviceChoiceTest {

    @Test
    void parsesWhatUsersWrite() {
        assertThat(DeviceChoice.parse("auto", "--device")).isEqualTo(DeviceChoice.AUTO);
        assertThat(DeviceChoice.parse(" CPU ", "--device")).isEqualTo(DeviceChoice.CPU);
        assertThat(DeviceChoice.parse("cuda", "--device")).isEqualTo(new DeviceChoice(DeviceChoice.Kind.CUDA, 0));
        assertThat(DeviceChoice.parse("cuda:1", "--device")).isEqualTo(new DeviceChoice(DeviceChoice.Kind.CUDA, 1));
        assertThat(DeviceChoice.parse("gpu:2", "--device").toString()).isEqualTo("cuda:2");
        for (String bad : new String[] {"", "tpu", "cuda:", "cuda:-1", "cuda:x", "cuda:99999999999"}) {
            assertThatThrownBy(() -> DeviceChoice.parse(bad, "models.base.device"))
                    .isInstanceOf(TorchSetupException.class)
                    .hasMessage("models.base.device must be auto, cpu, cuda or cuda:N, got '" + bad + "'");
        }
    }

    @Test
    void autoTakesTheFirstGpuOnlyWhenLibtorchHasCuda() {
        assertThat(DeviceChoice.AUTO.resolve(false, 0, "x")).isEqualTo(Device.cpu());
        assertThat(DeviceChoice.AUTO.resolve(true, 0, "x")).isEqualTo(Device.cpu());
        assertThat(DeviceChoice.AUTO.resolve(true, 2, "x")).isEqualTo(Device.gpu(0));
        assertThat(DeviceChoice.CPU.resolve(true, 2, "x")).isEqualTo(Device.cpu());
        assertThat(DeviceChoice.parse("cuda:1", "d").resolve(true, 2, "x")).isEqualTo(Device.gpu(1));
    }

    @Test
    void cudaWithoutCudaNamesTheModeToChoose() {
        assertThatThrownBy(() -> DeviceChoice.parse("cuda", "--device").resolve(false, 0, "2.7.1 cpu, LADDER_TORCH=bundled"))
                .isInstanceOf(TorchSetupException.class)
                .hasMessageStartingWith("--device cuda: the loaded libtorch (2.7.1 cpu, LADDER_TORCH=bundled) has no CUDA")
                .hasMessageContaining("LADDER_TORCH=pip")
                .hasMessageContaining("LADDER_TORCH=download");
        assertThatThrownBy(() -> DeviceChoice.parse("cuda", "--device").resolve(true, 0, "t"))
                .hasMessageContaining("sees no GPU");
        assertThatThrownBy(() -> DeviceChoice.parse("cuda:1", "--device").resolve(true, 1, "t"))
                .hasMessage("--device cuda:1: there is 1 GPU (cuda:0)");
        assertThatThrownBy(() -> DeviceChoice.parse("cuda:4", "--device").resolve(true, 2, "t"))
                .hasMessage("--device cuda:4: there are 2 GPUs (cuda:0 to cuda:1)");
    }

    @Test
    void labels() {
        assertThat(DeviceChoice.label(Device.cpu())).isEqualTo("cpu");
        assertThat(DeviceChoice.label(Device.gpu(3))).isEqualTo("cuda:3");
    }
}
