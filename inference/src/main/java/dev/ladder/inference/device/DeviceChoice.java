package dev.ladder.inference.device;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a model runs, as the user writes it: {@code auto} (the first GPU when the loaded libtorch has CUDA and sees
 * one, else the CPU), {@code cpu}, {@code cuda} or {@code cuda:N}.
 *
 * @param index the GPU index for {@code cuda} (0 when not written)
 */
public record DeviceChoice(Kind kind, int index) {

    public enum Kind { AUTO, CPU, CUDA }

    public static final DeviceChoice AUTO = new DeviceChoice(Kind.AUTO, 0);
    public static final DeviceChoice CPU = new DeviceChoice(Kind.CPU, 0);

    private static final Pattern CUDA = Pattern.compile("(?:cuda|gpu)(?::(\\d+))?");

    /**
     * @param where the flag or field, for the message ({@code --device}, {@code models.base.device})
     * @throws TorchSetupException for anything but auto, cpu, cuda, cuda:N
     */
    public static DeviceChoice parse(String value, String where) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) return AUTO;
        if (v.equals("cpu")) return CPU;
        Matcher m = CUDA.matcher(v);
        if (m.matches()) {
            try {
                return new DeviceChoice(Kind.CUDA, m.group(1) == null ? 0 : Integer.parseInt(m.group(1)));
            } catch (NumberFormatException e) {
                // a GPU index beyond int: fall through to the message
            }
        }
        throw new TorchSetupException(where + " must be auto, cpu, cuda or cuda:N, got '" + value + "'");
    }

    /** Where a model runs: this choice resolved on the engine {@link TorchRuntime#engine()} started. */
    public Placement place() {
        return Placement.of(resolve());
    }

    /** The device on the engine {@link TorchRuntime#engine()} started. */
    public Device resolve() {
        Engine e = TorchRuntime.engine();
        boolean cuda = e.hasCapability(StandardCapabilities.CUDA);
        return resolve(cuda, cuda ? e.getGpuCount() : 0, describeTorch());
    }

    /**
     * The device for a libtorch with or without CUDA that sees {@code gpus} GPUs.
     *
     * @param torch how the loaded libtorch is described in a refusal ("2.7.1 cpu, LADDER_TORCH=bundled")
     * @throws TorchSetupException for {@code cuda} without CUDA or without that GPU
     */
    public Device resolve(boolean cudaLibtorch, int gpus, String torch) {
        return switch (kind) {
            case CPU -> Device.cpu();
            case AUTO -> cudaLibtorch && gpus > 0 ? Device.gpu(0) : Device.cpu();
            case CUDA -> {
                if (!cudaLibtorch) {
                    throw new TorchSetupException("--device " + this + ": the loaded libtorch (" + torch + ") has no CUDA; "
                            + "run ./scripts/setup --gpu (a bridge for the machine's CUDA torch, LADDER_TORCH=bridge, or "
                            + "LADDER_TORCH=pip with a CUDA build of torch " + TorchRuntime.requiredVersion()
                            + "), or choose LADDER_TORCH=download (docs/gpu.md)");
                }
                if (gpus == 0) {
                    throw new TorchSetupException("--device " + this + ": libtorch has CUDA but sees no GPU "
                            + "(driver missing, or CUDA_VISIBLE_DEVICES hides them)");
                }
                if (index >= gpus) {
                    throw new TorchSetupException("--device " + this + ": there " + (gpus == 1 ? "is 1 GPU (cuda:0)"
                            : "are " + gpus + " GPUs (cuda:0 to cuda:" + (gpus - 1) + ")"));
                }
                yield Device.gpu(index);
            }
        };
    }

    private static String describeTorch() {
        TorchRuntime.Selection s = TorchRuntime.selection();
        String v = s.pip() != null ? s.pip().version() : TorchRuntime.requiredVersion() + " " + (s.mode() == TorchMode.BUNDLED ? "cpu" : "");
        return v.strip() + ", LADDER_TORCH=" + s.mode().label();
    }

    /** A device as users write it: {@code cpu}, {@code cuda:0}. */
    public static String label(Device device) {
        return device.isGpu() ? "cuda:" + device.getDeviceId() : device.getDeviceType();
    }

    @Override
    public String toString() {
        return switch (kind) {
            case AUTO -> "auto";
            case CPU -> "cpu";
            case CUDA -> index == 0 ? "cuda" : "cuda:" + index;
        };
    }
}
