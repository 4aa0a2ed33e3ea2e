package dev.ladder.inference.device;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.pytorch.jni.LibUtils;
import ai.djl.util.Utils;
import ai.djl.util.cuda.CudaUtils;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.MemoryUsage;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The one way into the PyTorch engine: applies the {@link TorchMode} before DJL starts, then hands out the engine.
 * Everything that needs the engine (model loading, devices, benchmarks) calls {@link #engine()}, so the choice is made
 * once per process and a bad choice fails with one line instead of a native crash or a silent CPU fallback.
 *
 * <p>The mode comes from the system property {@code ladder.torch}, else the environment variable
 * {@code LADDER_TORCH}, else {@code bundled}. The launcher ({@code scripts/ladder}) puts the jars on the class path
 * that the mode needs (the bundled CPU jar only for {@code bundled}) and sets {@code ai.djl.offline} before the user's
 * {@code LADDER_JAVA_OPTS}, so the user's own settings win. DJL reads {@code PYTORCH_LIBRARY_PATH},
 * {@code PYTORCH_VERSION} and {@code PYTORCH_FLAVOR} from the environment first and from system properties second: for
 * {@code pip} this class sets the properties, and a user's own environment variables still override them.
 */
public final class TorchRuntime {

    /**
     * The mode in force and what it resolved to.
     *
     * @param chosenBy where the mode came from ({@code LADDER_TORCH}, {@code ladder.torch}, {@code default}, ...)
     * @param pip      the installed torch ({@link TorchMode#PIP} and {@link TorchMode#BRIDGE}, else null)
     * @param bridge   the self-built bridge ({@link TorchMode#BRIDGE} only, else null)
     */
    public record Selection(TorchMode mode, String chosenBy, PipTorch.Found pip, BridgeTorch.Found bridge) {
        public Selection(TorchMode mode, String chosenBy, PipTorch.Found pip) {
            this(mode, chosenBy, pip, null);
        }
    }

    /** One GPU as CUDA reports it (capability like {@code 7.5}; memory in bytes, -1 when unknown). */
    public record Gpu(int index, String capability, long totalBytes, long usedBytes) {}

    /**
     * What the process runs on, for {@code ladder env} and a run's environment.json.
     *
     * @param libtorchVersion the version DJL loaded
     * @param libtorchPath    the folder it loaded it from
     * @param flavor          {@code cpu}, {@code cu128}, ...
     * @param cuda            whether the loaded libtorch was built with CUDA
     * @param cudaRuntime     the CUDA runtime version DJL sees ("" when none)
     * @param defaultDevice   the device {@code --device auto} resolves to
     */
    public record Info(Selection selection, String libtorchVersion, String libtorchPath, String flavor, boolean cuda,
                       String cudaRuntime, List<Gpu> gpus, String defaultDevice) {}

    private static final String PROPERTY = "ladder.torch";
    private static final String ENV = "LADDER_TORCH";
    private static Selection selection;
    private static Engine engine;

    private TorchRuntime() {}

    /** The PyTorch engine, started with the selected mode on first use. */
    public static synchronized Engine engine() {
        if (engine != null) return engine;
        Selection s = selection();
        apply(s);
        try {
            engine = Engine.getEngine("PyTorch");
        } catch (RuntimeException | LinkageError e) {
            String where = s.pip() != null ? ", " + s.pip().libDir() : "";
            String hint = switch (s.mode()) {
                case DOWNLOAD -> "; DJL downloads libtorch from publish.djl.ai: without that, use LADDER_TORCH=pip or bundled";
                case PIP -> "; check that this torch runs in Python (python3 -c 'import torch'), or use LADDER_TORCH=bundled";
                case BRIDGE -> "; rebuild the bridge for this torch (scripts/build-bridge), or use LADDER_TORCH=bundled";
                case BUNDLED -> "";
            };
            throw new TorchSetupException("cannot start the PyTorch engine (LADDER_TORCH=" + s.mode().label() + where
                    + "): " + oneLine(e) + hint, e);
        }
        return engine;
    }

    /** The selected mode (decided once per process; a {@code pip} mode is located and checked here). */
    public static synchronized Selection selection() {
        if (selection == null) selection = select(System.getenv(), System.getProperties(), TorchRuntime.class.getClassLoader());
        return selection;
    }

    /**
     * Decides the mode from the given environment and properties and checks the class path fits it.
     *
     * @throws TorchSetupException for an unknown mode, a class path that contradicts it, or an unusable pip torch
     */
    static Selection select(Map<String, String> env, Properties props, ClassLoader classes) {
        String value = props.getProperty(PROPERTY);
        String chosenBy = props.getProperty(PROPERTY + ".source", "ladder.torch");
        if (value == null || value.isBlank()) {
            value = env.get(ENV);
            chosenBy = ENV;
        }
        if (value == null || value.isBlank()) {
            value = "bundled";
            chosenBy = "default";
        }
        TorchMode mode = TorchMode.parse(value, chosenBy.equals("default") ? ENV : chosenBy);
        boolean bundledJar = bundledJarPresent(classes);
        switch (mode) {
            case BUNDLED -> {
                if (!bundledJar) {
                    throw new TorchSetupException("LADDER_TORCH=bundled but the pytorch-native-cpu jar is not on the class "
                            + "path; run through scripts/ladder, or choose LADDER_TORCH=pip or download");
                }
                return new Selection(mode, chosenBy, null);
            }
            case DOWNLOAD -> {
                if (bundledJar) {
                    throw new TorchSetupException("LADDER_TORCH=download but the bundled CPU libtorch (pytorch-native-cpu jar) "
                            + "is on the class path, and DJL would load it; run through scripts/ladder, which leaves it out");
                }
                if ("true".equalsIgnoreCase(props.getProperty("ai.djl.offline"))) {
                    throw new TorchSetupException("LADDER_TORCH=download needs DJL online, but ai.djl.offline=true "
                            + "(LADDER_JAVA_OPTS?)");
                }
                return new Selection(mode, chosenBy, null);
            }
            case BRIDGE -> {
                if (bundledJar) {
                    throw new TorchSetupException("LADDER_TORCH=bridge but the bundled CPU libtorch (pytorch-native-cpu jar) "
                            + "is on the class path, and DJL would load it; run through scripts/ladder, which leaves it out");
                }
                Map<String, String> bridgeEnv = settings(env, props, "LADDER_BRIDGE_DIR", "LADDER_TORCH_DIR", "LADDER_TORCH_VERSION");
                String home = props.getProperty("ladder.home");
                BridgeTorch.Found bridge = BridgeTorch.locate(bridgeEnv, home == null || home.isBlank() ? null : Path.of(home));
                return new Selection(mode, chosenBy, bridge.torch(), bridge);
            }
            default -> {
                Map<String, String> pipEnv = settings(env, props, "LADDER_TORCH_DIR", "LADDER_TORCH_VERSION", "LADDER_PYTHON");
                PipTorch.Found found = PipTorch.locate(pipEnv, requiredVersion(), shippedFlavors(classes));
                return new Selection(mode, chosenBy, found);
            }
        }
    }

    /** The environment with each key overridden by its system property ({@code LADDER_TORCH_DIR} -> {@code ladder.torch.dir}). */
    private static Map<String, String> settings(Map<String, String> env, Properties props, String... keys) {
        Map<String, String> out = new HashMap<>(env);
        for (String key : keys) {
            String p = props.getProperty(key.toLowerCase(Locale.ROOT).replace('_', '.'));
            if (p != null && !p.isBlank()) out.put(key, p);
        }
        return out;
    }

    /** Sets what DJL reads before it starts (for {@code pip}: where libtorch is, its version and flavor). */
    private static void apply(Selection s) {
        if (s.pip() == null) return;
        System.setProperty("PYTORCH_LIBRARY_PATH", s.pip().libDir().toString());
        if (s.bridge() != null) {
            // DJL takes <engine cache>/pytorch/<version>-<flavor>-<classifier>/0.35.1-libdjl_torch.so: the bridge's own
            System.setProperty("PYTORCH_VERSION", s.bridge().djlVersion());
            System.setProperty("PYTORCH_FLAVOR", s.bridge().flavor());
            System.setProperty("ENGINE_CACHE_DIR", s.bridge().engineCache().toString());
        } else {
            System.setProperty("PYTORCH_VERSION", requiredVersion());
            System.setProperty("PYTORCH_FLAVOR", s.pip().flavor());
        }
        // DJL counts GPUs through JNA's libcudart: point it at pip's CUDA runtime when there is no system-wide one
        if (s.pip().cudaRuntimeDir() != null) {
            String jna = System.getProperty("jna.library.path", "");
            System.setProperty("jna.library.path", s.pip().cudaRuntimeDir()
                    + (jna.isBlank() ? "" : File.pathSeparator + jna));
        }
        // the Python bindings are not a library DJL can load (they need a Python interpreter in the process)
        String exclusion = System.getProperty("PYTORCH_LIBRARY_EXCLUSION", "");
        if (!exclusion.contains("libtorch_python.so")) {
            System.setProperty("PYTORCH_LIBRARY_EXCLUSION",
                    exclusion.isBlank() ? "libtorch_python.so" : exclusion + ",libtorch_python.so");
        }
    }

    /** DJL's version (its {@code api.properties}, read without starting an engine), or {@code unknown}. */
    public static String djlVersion() {
        try (InputStream in = Engine.class.getResourceAsStream("/ai/djl/engine/api.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("djl_version");
            return v == null || v.isBlank() ? "unknown" : v.strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Where DJL keeps the PyTorch engine's native files (ENGINE_CACHE_DIR, else its default under the user's home). */
    public static Path engineCacheDir() {
        return Utils.getEngineCacheDir("pytorch");
    }

    /** The libtorch version DJL's PyTorch engine was built for (its {@code pytorch-engine.properties}). */
    public static String requiredVersion() {
        try (InputStream in = Engine.class.getClassLoader().getResourceAsStream("pytorch-engine.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("pytorch_version");
                if (v != null && !v.isBlank()) return v.strip();
            }
        } catch (IOException ignored) {
            // fall through
        }
        throw new TorchSetupException("the DJL PyTorch engine jar has no pytorch-engine.properties: a broken build");
    }

    /** Whether the CPU libtorch jar (a non-placeholder {@code native/lib/pytorch.properties}) is on the class path. */
    static boolean bundledJarPresent(ClassLoader classes) {
        try {
            var urls = classes.getResources("native/lib/pytorch.properties");
            while (urls.hasMoreElements()) {
                URL url = urls.nextElement();
                Properties p = new Properties();
                try (InputStream in = url.openStream()) {
                    p.load(in);
                }
                if (!Boolean.parseBoolean(p.getProperty("placeholder", "false")) && p.getProperty("flavor") != null) return true;
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** The flavors the {@code pytorch-jni} jar holds a bridge for, on this platform. */
    static List<String> shippedFlavors(ClassLoader classes) {
        String classifier = classifier();
        List<String> out = new ArrayList<>();
        for (String f : List.of("cpu", "cu118", "cu121", "cu124", "cu126", "cu128", "cu129", "cu130")) {
            if (classes.getResource("jnilib/" + classifier + "/" + f + "/" + System.mapLibraryName("djl_torch")) != null) out.add(f);
        }
        return out;
    }

    /** DJL's platform classifier of this machine ({@code linux-x86_64}, ...). */
    static String classifier() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        String o = os.startsWith("mac") ? "osx" : os.startsWith("win") ? "win" : "linux";
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") ? "aarch64" : arch;
        return o + "-" + a;
    }

    /** Starts the engine (if need be) and reports what it loaded and which devices it sees. */
    public static Info info() {
        Engine e = engine();
        String path = LibUtils.getLibtorchPath();
        boolean cuda = e.hasCapability(StandardCapabilities.CUDA);
        List<Gpu> gpus = new ArrayList<>();
        String runtime = "";
        int count = cuda ? e.getGpuCount() : 0;
        for (int i = 0; i < count; i++) {
            String cap = "unknown";
            long total = -1;
            long used = -1;
            try {
                cap = CudaUtils.getComputeCapability(i);
                MemoryUsage m = CudaUtils.getGpuMemory(Device.gpu(i));
                total = m.getMax();
                used = m.getUsed();
            } catch (RuntimeException | LinkageError ignored) {
                // CUDA's runtime library may be out of JNA's reach even when libtorch has CUDA: then unknown
            }
            gpus.add(new Gpu(i, cap, total, used));
        }
        if (count > 0) {
            try {
                runtime = CudaUtils.getCudaVersionString();
            } catch (RuntimeException | LinkageError ignored) {
                runtime = "unknown";
            }
        }
        return new Info(selection(), LibUtils.getVersion(), path, flavorOf(path), cuda, runtime, List.copyOf(gpus),
                DeviceChoice.label(e.defaultDevice()));
    }

    /**
     * The flavor of the loaded libtorch: a pip torch's own; for DJL's cache folders ({@code 2.7.1-20250812-cpu-linux-x86_64})
     * the part after the version; else {@code PYTORCH_FLAVOR}, else "unknown".
     */
    public static String flavorOf(String libtorchPath) {
        Selection s = selection();
        if (s.bridge() != null) return s.bridge().flavor();
        if (s.pip() != null) return s.pip().flavor();
        Path name = Path.of(libtorchPath).getFileName();
        if (name != null) {
            var m = Pattern.compile("^\\d+\\.\\d+\\.\\d+(?:-\\d+)?-([a-z0-9]+(?:-precxx11)?)-[a-z]+-[a-z0-9_]+$")
                    .matcher(name.toString());
            if (m.matches()) return m.group(1);
        }
        String f = System.getenv("PYTORCH_FLAVOR");
        if (f == null) f = System.getProperty("PYTORCH_FLAVOR");
        return f == null ? "unknown" : f;
    }

    /** The failure's own message, and its root cause when that is another exception. */
    private static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String top = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String text = root == e ? top : top + " (" + root.getClass().getSimpleName()
                + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
        return text.replaceAll("\\s+", " ").strip();
    }
}
