package dev.ladder.inference.device;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A DJL bridge built by {@code scripts/build-bridge} for the torch installed on this machine
 * ({@code LADDER_TORCH=bridge}; docs/gpu.md). DJL 0.35.1 ships its bridge ({@code libdjl_torch.so}) for libtorch 2.7.1
 * only; a bridge compiled from DJL's sources against the torch at hand lets Ladder run on Debian's 1.13, Colab's torch
 * or a GPU machine's 2.11 without installing another torch.
 *
 * <p>The bridge folder holds {@code libdjl_torch.so}, {@code bridge.properties} (the torch it was built for: version,
 * folder, flavor) and {@code djl-cache/pytorch/<x.y.z>-<flavor>-<classifier>/0.35.1-libdjl_torch.so}, the place DJL
 * takes a bridge from before it would download one. Loading a bridge into another torch than it was built for ends in
 * undefined symbols or worse, so the versions must be equal, or Ladder refuses in one line.
 */
public final class BridgeTorch {

    /** The file {@code scripts/build-bridge} writes beside the library. */
    public static final String PROPERTIES = "bridge.properties";

    /**
     * A usable bridge and the torch it loads.
     *
     * @param dir      the bridge folder
     * @param builtFor the torch version it was compiled against (as that torch reports it, e.g. {@code 2.11.0+cu130})
     * @param flavor   {@code cpu} or {@code cuXYZ}
     * @param torch    the torch whose {@code lib/} DJL loads
     */
    public record Found(Path dir, String builtFor, String flavor, PipTorch.Found torch) {
        /** DJL's engine cache, inside the bridge folder: where DJL looks for {@code 0.35.1-libdjl_torch.so}. */
        public Path engineCache() {
            return dir.resolve("djl-cache");
        }

        /** The version DJL is told ({@code x.y.z}): the name of the cache folder the build made. */
        public String djlVersion() {
            return plainVersion(builtFor);
        }
    }

    private BridgeTorch() {}

    /**
     * Finds the bridge ({@code LADDER_BRIDGE_DIR}, else {@code .ladder-bridge} in the checkout) and checks that the torch
     * it will load ({@code LADDER_TORCH_DIR}, else the one it was built against) is the version it was built for.
     *
     * @param env  {@code LADDER_BRIDGE_DIR}, {@code LADDER_TORCH_DIR}, {@code LADDER_TORCH_VERSION}
     * @param home the checkout ({@code ladder.home}, set by the launcher), or null
     * @throws TorchSetupException naming the folder, the versions and what to do
     */
    public static Found locate(Map<String, String> env, Path home) {
        String named = env.get("LADDER_BRIDGE_DIR");
        Path dir;
        String where;
        if (named != null && !named.isBlank()) {
            dir = Path.of(named);
            where = "LADDER_BRIDGE_DIR=" + named;
        } else if (home != null) {
            dir = home.resolve(".ladder-bridge");
            where = dir.toString();
        } else {
            throw new TorchSetupException("LADDER_TORCH=bridge: no bridge folder; set LADDER_BRIDGE_DIR to the --out "
                    + "folder of scripts/build-bridge, or run through scripts/ladder");
        }
        Path props = dir.resolve(PROPERTIES);
        if (!Files.isRegularFile(props)) {
            throw new TorchSetupException("LADDER_TORCH=bridge: no bridge in " + where + " (" + PROPERTIES
                    + " missing); build one with scripts/build-bridge");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(props)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new TorchSetupException("LADDER_TORCH=bridge: cannot read " + props + ": " + e.getMessage(), e);
        }
        String builtFor = required(p, "torch_version", props);
        String flavor = required(p, "flavor", props);
        String torchDir = env.get("LADDER_TORCH_DIR");
        String torchBy = "LADDER_TORCH_DIR=" + torchDir;
        if (torchDir == null || torchDir.isBlank()) {
            torchDir = required(p, "torch_dir", props);
            torchBy = props + " (torch_dir)";
        }
        PipTorch.Found torch = PipTorch.fromFolder(Path.of(torchDir), env.get("LADDER_TORCH_VERSION"), torchBy);
        if (!torch.version().equals(builtFor)) {
            throw new TorchSetupException("LADDER_TORCH=bridge: the bridge in " + dir + " was built for torch " + builtFor
                    + ", but the torch in " + torch.libDir() + " is " + torch.version()
                    + "; rebuild it for this torch with scripts/build-bridge");
        }
        Found found = new Found(dir.toAbsolutePath(), builtFor, flavor, torch);
        Path link = found.engineCache().resolve("pytorch").resolve(found.djlVersion() + "-" + flavor + "-" + TorchRuntime.classifier())
                .resolve("0.35.1-" + System.mapLibraryName("djl_torch"));
        if (!Files.isRegularFile(link)) {
            throw new TorchSetupException("LADDER_TORCH=bridge: " + link + " is missing (a bridge folder copied without "
                    + "its links, or built on another platform); rebuild it with scripts/build-bridge");
        }
        return found;
    }

    /** {@code 2.11.0+cu130 -> 2.11.0}, {@code 1.13.0a0 -> 1.13.0}: DJL names its folders after x.y.z. */
    static String plainVersion(String version) {
        var m = Pattern.compile("^(\\d+\\.\\d+\\.\\d+)").matcher(version.strip());
        if (!m.find()) throw new TorchSetupException("LADDER_TORCH=bridge: unexpected torch version '" + version + "'");
        return m.group(1);
    }

    private static String required(Properties p, String key, Path file) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new TorchSetupException("LADDER_TORCH=bridge: " + file + " has no " + key + "; rebuild with scripts/build-bridge");
        }
        return v.strip();
    }
}
