package dev.ladder.cli;

import dev.ladder.adapters.AdapterException;
import dev.ladder.adapters.AdapterMerger;
import dev.ladder.adapters.MergeBase;
import dev.ladder.adapters.PeftAdapter;
import dev.ladder.adapters.TinyAdapters;
import dev.ladder.common.FileTrees;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelException;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "adapters", description = "LoRA/QLoRA adapters (Hugging Face PEFT): inspect, merge into a base model.",
        subcommands = {AdaptersCommand.Merge.class, AdaptersCommand.Info.class, AdaptersExportCommand.class,
                AdaptersCommand.MakeTiny.class})
final class AdaptersCommand extends GroupCommand {

    private AdaptersCommand() {}

    @Command(name = "merge", mixinStandardHelpOptions = true,
            description = {"Merge a PEFT LoRA adapter into a base model and write a model directory "
                    + "(W' = W + alpha/r * B A, or alpha/sqrt(r) with rsLoRA; computed in float32).",
                    "Writes safetensors, config.json, generation config, tokenizer files and ladder-merge.json."})
    static final class Merge implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Option(names = "--base", required = true, paramLabel = "MODEL",
                description = "Base model directory or pulled repo id owner/name[@revision].")
        String base;
        @Option(names = "--adapter", required = true, paramLabel = "DIR",
                description = "PEFT adapter directory (adapter_config.json + adapter_model.safetensors).")
        Path adapter;
        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output model directory.")
        Path out;
        @Option(names = "--shards", defaultValue = "0", paramLabel = "N",
                description = "Number of safetensors files (default: one per ~2 GB).")
        int shards;
        @Option(names = "--dtype", paramLabel = "f32|f16|bf16",
                description = "Output weight dtype (default: the base's stored dtype).")
        String dtype;
        @Option(names = "--merge-base", defaultValue = "full", paramLabel = "full|nf4",
                description = "Add the LoRA product to the full-precision base (default) or to its NF4 round trip "
                        + "(what a QLoRA adapter was trained against).")
        String mergeBase;
        @Option(names = "--force", description = "Write into a non-empty DIR (its model files are replaced).")
        boolean force;

        @Override
        public Integer call() {
            DType d = dtype == null ? null : switch (dtype.toLowerCase(Locale.ROOT)) {
                case "f32" -> DType.F32;
                case "f16" -> DType.F16;
                case "bf16" -> DType.BF16;
                default -> throw new UserError("--dtype must be f32, f16 or bf16, got '" + dtype + "'");
            };
            MergeBase mb;
            try {
                mb = MergeBase.parse(mergeBase);
            } catch (IllegalArgumentException e) {
                throw new UserError("--merge-base must be full or nf4, got '" + mergeBase + "'");
            }
            Path baseDir = ModelCommand.resolve(base);
            AdapterMerger.Result r;
            try {
                r = AdapterMerger.merge(baseDir, adapter, out, new AdapterMerger.Options(d, shards, mb, force, version()));
            } catch (AdapterException | ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            spec.commandLine().getOut().printf(Locale.ROOT,
                    "merged %d LoRA modules%s into %s (%s, merge base %s): %d tensors in %d file(s), %s -> %s%n",
                    r.adapted(), r.replaced() == 0 ? "" : " and " + r.replaced() + " replaced tensors", baseDir,
                    r.dtype().name().toLowerCase(Locale.ROOT), mb.cliName(), r.tensors(), r.weightFiles().size(),
                    ModelCommand.Sizes.bytes(r.bytes()), out);
            return 0;
        }
    }

    @Command(name = "info", mixinStandardHelpOptions = true,
            description = "PEFT type, base model, rank, alpha, scale, targets, patterns and size of an adapter; "
                    + "with --base also checks that it fits that model.")
    static final class Info implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DIR", description = "PEFT adapter directory.")
        Path dir;
        @Option(names = "--base", paramLabel = "MODEL", description = "Validate against this base model (directory or pulled repo id).")
        String base;

        @Override
        public Integer call() throws IOException {
            Path baseDir = base == null ? null : ModelCommand.resolve(base);
            List<String[]> rows = new ArrayList<>();
            try (PeftAdapter a = PeftAdapter.read(dir)) {
                PeftAdapter.Config c = a.config();
                rows.add(new String[] {"adapter", dir.toString()});
                rows.add(new String[] {"peft type", c.peftType() + (c.taskType() == null ? "" : " (" + c.taskType() + ")")});
                rows.add(new String[] {"base model", c.baseModel() == null ? "-" : c.baseModel()});
                rows.add(new String[] {"r", Integer.toString(c.r())});
                rows.add(new String[] {"alpha", num(c.alpha())});
                rows.add(new String[] {"scale", num(c.scale(c.r(), c.alpha()))
                        + (c.useRslora() ? " (alpha / sqrt(r))" : " (alpha / r)")});
                rows.add(new String[] {"rsLoRA", c.useRslora() ? "yes" : "no"});
                rows.add(new String[] {"target modules", c.targetModulesText().isEmpty() ? "-" : c.targetModulesText()});
                if (!c.rankPattern().isEmpty()) rows.add(new String[] {"rank pattern", c.rankPattern().toString()});
                if (!c.alphaPattern().isEmpty()) rows.add(new String[] {"alpha pattern", c.alphaPattern().toString()});
                if (!c.layersToTransform().isEmpty()) rows.add(new String[] {"layers", c.layersToTransform().toString()});
                if (!c.bias().equals("none")) rows.add(new String[] {"bias", c.bias()});
                if (c.fanInFanOut()) rows.add(new String[] {"fan_in_fan_out", "yes"});
                rows.add(new String[] {"modules to save", c.modulesToSave().isEmpty() ? "-" : String.join(", ", c.modulesToSave())});
                Map<String, Integer> kinds = new TreeMap<>();
                Map<String, String> ranks = new LinkedHashMap<>();
                for (PeftAdapter.LoraModule m : a.modules()) {
                    String kind = m.module().substring(m.module().lastIndexOf('.') + 1);
                    kinds.merge(kind, 1, Integer::sum);
                    if (m.rank() != c.r() || m.alpha() != c.alpha()) {
                        ranks.put(m.module(), "r " + m.rank() + ", alpha " + num(m.alpha()) + ", scale " + num(m.scale()));
                    }
                }
                List<String> k = new ArrayList<>();
                kinds.forEach((n, count) -> k.add(n + " x" + count));
                rows.add(new String[] {"LoRA modules", a.modules().size() + (k.isEmpty() ? "" : " (" + String.join(", ", k) + ")")});
                ranks.forEach((m, s) -> rows.add(new String[] {"  " + m, s}));
                if (!a.replacements().isEmpty()) {
                    rows.add(new String[] {"replaced tensors", String.join(", ", a.replacements().keySet())});
                }
                long size = Files.size(dir.resolve(PeftAdapter.WEIGHTS_FILE));
                rows.add(new String[] {"tensors", a.weights().names().size() + ", " + a.parameters() + " parameters ("
                        + ModelCommand.Sizes.count(a.parameters()) + ")"});
                rows.add(new String[] {"file", PeftAdapter.WEIGHTS_FILE + ", " + ModelCommand.Sizes.bytes(size)});
                if (baseDir != null) {
                    PeftAdapter.Plan plan = a.validate(baseDir);
                    rows.add(new String[] {"base check", "ok: " + plan.targets().size() + " modules and "
                            + plan.replacements().size() + " replaced tensors fit " + baseDir});
                }
            } catch (AdapterException | ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
            for (String[] r : rows) out.println(r[0] + " ".repeat(width - r[0].length() + 2) + r[1]);
            return 0;
        }
    }

    private static String num(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%.6g", d);
    }

    /** The Ladder version from the build, for ladder-merge.json. */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = AdaptersCommand.class.getResourceAsStream("/ladder-version.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    @Command(name = "make-tiny", mixinStandardHelpOptions = true,
            description = "Write a random PEFT LoRA adapter (every projection) for a base model: the QLoRA rung's "
                    + "code path on a tiny model, for tests and CI. Same base, rank and seed: same bytes.")
    static final class MakeTiny implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Option(names = "--base", required = true, paramLabel = "M", description = "The base model directory or pulled repo id.")
        String base;
        @Parameters(paramLabel = "DIR", description = "Where to write the adapter (must be empty or missing).")
        Path dir;
        @Option(names = "--rank", defaultValue = "4", paramLabel = "R", description = "LoRA rank (default ${DEFAULT-VALUE}).")
        int rank;
        @Option(names = "--seed", defaultValue = "1", paramLabel = "S") long seed;

        @Override
        public Integer call() throws IOException {
            Path baseDir = ModelCommand.resolve(base);
            Path target = dir.toAbsolutePath().normalize();
            if (Files.exists(target) && !(Files.isDirectory(target) && ModelCommand.MakeTiny.isEmpty(target))) {
                throw new UserError(dir + " exists and is not an empty directory");
            }
            Files.createDirectories(target.getParent());
            // write beside DIR, then move into place: an error leaves nothing half-written
            Path tmp = target.getParent().resolve("." + target.getFileName() + ".tmp-" + Long.toHexString(System.nanoTime()));
            try {
                TinyAdapters.write(baseDir, tmp, rank, seed);
                Files.deleteIfExists(target);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AdapterException e) {
                throw new UserError(e.getMessage(), e);
            } finally {
                FileTrees.deleteQuietly(tmp);
            }
            spec.commandLine().getOut().println(target);
            return 0;
        }
    }
}
