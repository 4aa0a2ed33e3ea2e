package dev.ladder.eval.run;

import dev.ladder.inference.device.MemorySize;
import dev.ladder.inference.device.TorchRuntime;
import dev.ladder.inference.nativeext.NativeExtension;
import dev.ladder.common.StorePaths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the PyTorch engine of this process loaded and sees, as the flat keys that {@code ladder env --json} prints and
 * a run's environment.json records: {@code torch.mode} and {@code torch.mode.chosen_by}, {@code pytorch.version},
 * {@code pytorch.flavor} and {@code pytorch.path} (as loaded, not as configured), {@code pytorch.cuda} (libtorch built
 * with CUDA), {@code cuda.runtime}, {@code gpu.count}, per GPU {@code gpu.N.capability},
 * {@code gpu.N.memory_total_bytes}, {@code device.default}, {@code host.memory_total_bytes}, the cache folders, and
 * {@code native.extension}: whether Ladder's native extension is loaded (its int8 kernels then run int8 models), or
 * why not.
 * Starts the engine (about a second) if nothing did yet.
 */
public final class TorchEnvironment {

    private TorchEnvironment() {}

    public static Map<String, String> entries() {
        TorchRuntime.Info info = TorchRuntime.info();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("torch.mode", info.selection().mode().label());
        env.put("torch.mode.chosen_by", info.selection().chosenBy());
        env.put("pytorch.version", info.libtorchVersion());
        env.put("pytorch.flavor", info.flavor());
        env.put("pytorch.path", info.libtorchPath());
        if (info.selection().bridge() != null) {
            // the self-built bridge and the torch it was compiled against (LADDER_TORCH=bridge)
            env.put("bridge.path", info.selection().bridge().dir().toString());
            env.put("bridge.built_for", info.selection().bridge().builtFor());
        }
        env.put("pytorch.cuda", Boolean.toString(info.cuda()));
        env.put("cuda.runtime", info.cudaRuntime().isEmpty() ? "none" : info.cudaRuntime());
        env.put("gpu.count", Integer.toString(info.gpus().size()));
        for (TorchRuntime.Gpu g : info.gpus()) {
            env.put("gpu." + g.index() + ".capability", g.capability());
            env.put("gpu." + g.index() + ".memory_total_bytes", Long.toString(g.totalBytes()));
        }
        env.put("device.default", info.defaultDevice());
        env.put("host.memory_total_bytes", Long.toString(MemorySize.physicalMemory()));
        env.put("cache.ladder", StorePaths.cacheDir().toString());
        env.put("cache.models", StorePaths.modelsDir().toString());
        env.put("cache.djl", TorchRuntime.engineCacheDir().toString());
        env.put("native.extension", NativeExtension.status().line());
        return env;
    }
}
