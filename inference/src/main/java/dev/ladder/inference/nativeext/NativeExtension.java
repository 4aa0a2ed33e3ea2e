package dev.ladder.inference.nativeext;

import ai.djl.pytorch.jni.LibUtils;
import dev.ladder.inference.device.TorchRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Whether Ladder's native extension is loaded in this process, decided once: from {@code ladder.native.dir} (set by
 * {@code scripts/ladder} when {@code native/build} holds a build) or {@code LADDER_NATIVE_DIR}, the folder
 * {@code scripts/build-native} wrote ({@code libladder_native.so} and {@code native.properties}); {@code ladder.native}
 * or {@code LADDER_NATIVE} {@code off} switches it off. The library is linked against one libtorch and must never
 * enter a process running another (it would pull in a second libtorch or fail on missing symbols), so it is loaded
 * only after the engine has started and only when the running libtorch is the one it was built for: the same
 * version string where a pip or bridge torch runs, the same x.y.z and flavor for DJL's own libtorch. Every other case
 * is one line in {@link Status#line()} and the Java paths run.
 */
public final class NativeExtension {

    /** What {@code scripts/build-native} writes beside the library. */
    public static final String PROPERTIES = "native.properties";

    /**
     * @param loaded  whether the kernels can be called
     * @param line    one line: what was loaded, or why nothing was
     * @param cuda    whether the build has CUDA kernels
     * @param maxRows most rows of x its small-batch kernels take
     */
    public record Status(boolean loaded, String line, boolean cuda, int maxRows) {
        static Status notLoaded(String why) {
            return new Status(false, why, false, 0);
        }
    }

    /** What a build folder says it was built for. */
    record Build(Path dir, Path library, String torchVersion, String flavor, boolean cuda) {}

    /** The libtorch this process runs: version and flavor, the mode, and whether the version is a pip torch's own. */
    record Running(String version, String flavor, String mode, boolean pipVersion) {}

    private static Status status;

    private NativeExtension() {}

    /** Decided on the first call (starting the engine if nothing did yet). */
    public static synchronized Status status() {
        if (status == null) status = load(System.getenv(), System.getProperties());
        return status;
    }

    static Status load(Map<String, String> env, Properties props) {
        Map<String, String> settings = settings(env, props);
        if ("off".equalsIgnoreCase(settings.getOrDefault("LADDER_NATIVE", ""))) {
            return Status.notLoaded("off (LADDER_NATIVE=off)");
        }
        String dir = settings.get("LADDER_NATIVE_DIR");
        if (dir == null || dir.isBlank()) {
            return Status.notLoaded("not built (scripts/build-native writes native/build; LADDER_NATIVE_DIR names another folder)");
        }
        Build build;
        try {
            build = read(Path.of(dir));
        } catch (IllegalStateException e) {
            return Status.notLoaded("not loaded: " + e.getMessage());
        }
        String mismatch = mismatch(build, running());
        if (mismatch != null) return Status.notLoaded("not loaded: " + mismatch);
        try {
            System.load(build.library().toString());
        } catch (UnsatisfiedLinkError e) {
            return Status.notLoaded("not loaded: cannot load " + build.library() + ": " + oneLine(e.getMessage()));
        }
        return loaded(build, NativeLibrary.info());
    }

    /** The status of a loaded library from what it reports of itself ({@link NativeLibrary#info()}). */
    static Status loaded(Build build, String info) {
        Map<String, String> fields = new HashMap<>();
        for (String part : info.split(";")) {
            int eq = part.indexOf('=');
            if (eq > 0) fields.put(part.substring(0, eq), part.substring(eq + 1));
        }
        String torch = fields.getOrDefault("torch", "?");
        if (!torch.equals(build.torchVersion())) {
            return Status.notLoaded("not loaded: " + build.library() + " was compiled against torch " + torch + " but "
                    + PROPERTIES + " says " + build.torchVersion() + "; rebuild it with scripts/build-native");
        }
        String kernels = fields.getOrDefault("kernels", "?");
        int maxRows = Integer.parseInt(fields.getOrDefault("max_rows", "0"));
        return new Status(true, "loaded " + build.library() + " (torch " + torch + ", " + build.flavor() + ", kernels "
                + kernels + ")", build.cuda() && kernels.endsWith("+cuda"), maxRows);
    }

    /** The build in {@code dir}, from its {@link #PROPERTIES}. */
    static Build read(Path dir) {
        Path props = dir.resolve(PROPERTIES);
        if (!Files.isRegularFile(props)) {
            throw new IllegalStateException("no " + PROPERTIES + " in " + dir + " (build it with scripts/build-native)");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(props)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read " + props + ": " + oneLine(e.getMessage()));
        }
        String version = p.getProperty("torch_version", "").strip();
        String flavor = p.getProperty("flavor", "").strip();
        if (version.isEmpty() || flavor.isEmpty()) {
            throw new IllegalStateException(props + " has no torch_version or flavor; rebuild with scripts/build-native");
        }
        Path library = dir.resolve(System.mapLibraryName("ladder_native")).toAbsolutePath();
        if (!Files.isRegularFile(library)) {
            throw new IllegalStateException(library + " is missing (a build folder copied without its library)");
        }
        return new Build(dir.toAbsolutePath(), library, version, flavor,
                Boolean.parseBoolean(p.getProperty("cuda", "false").strip()));
    }

    /** Why {@code build} must not be loaded into {@code running}, or null when it may. */
    static String mismatch(Build build, Running running) {
        boolean same = running.pipVersion() ? build.torchVersion().equals(running.version())
                : plain(build.torchVersion()).equals(plain(running.version())) && build.flavor().equals(running.flavor());
        if (same) return null;
        return "built for torch " + build.torchVersion() + " (" + build.flavor() + ") but the running libtorch is "
                + running.version() + " (" + running.flavor() + ", LADDER_TORCH=" + running.mode() + "); rebuild "
                + build.dir() + " for it with scripts/build-native, or run the torch it was built for";
    }

    /** The running libtorch (the engine is started here if it was not). */
    static Running running() {
        TorchRuntime.engine();
        TorchRuntime.Selection s = TorchRuntime.selection();
        if (s.pip() != null) {
            String flavor = s.bridge() != null ? s.bridge().flavor() : s.pip().flavor();
            return new Running(s.pip().version(), flavor, s.mode().label(), true);
        }
        return new Running(LibUtils.getVersion(), TorchRuntime.flavorOf(LibUtils.getLibtorchPath()), s.mode().label(),
                false);
    }

    /** {@code 2.11.0+cu130 -> 2.11.0}, {@code 1.13.0a0 -> 1.13.0}. */
    static String plain(String version) {
        var m = Pattern.compile("^(\\d+\\.\\d+\\.\\d+)").matcher(version.strip());
        return m.find() ? m.group(1) : version.strip();
    }

    /** {@code LADDER_NATIVE} and {@code LADDER_NATIVE_DIR} from the environment, each overridden by its property. */
    private static Map<String, String> settings(Map<String, String> env, Properties props) {
        Map<String, String> out = new HashMap<>();
        for (String[] kv : new String[][] {{"LADDER_NATIVE", "ladder.native"}, {"LADDER_NATIVE_DIR", "ladder.native.dir"}}) {
            String v = props.getProperty(kv[1]);
            if (v == null || v.isBlank()) v = env.get(kv[0]);
            if (v != null && !v.isBlank()) out.put(kv[0], v.strip());
        }
        return out;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip();
    }
}
