package dev.ladder.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.eval.experiment.ExperimentLoader;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.device.DeviceKind;
import dev.ladder.inference.device.EngineLimits;
import dev.ladder.inference.device.MemoryPlan;
import dev.ladder.inference.device.MemoryRequest;
import dev.ladder.inference.device.MemorySize;
import dev.ladder.inference.device.WeightFormat;
import dev.ladder.common.FileTrees;
import dev.ladder.inference.model.DType;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.model.TensorInfo;
import dev.ladder.inference.model.TinyModels;
import dev.ladder.inference.model.Weights;
import dev.ladder.inference.store.HubFailure;
import dev.ladder.inference.store.HubFile;
import dev.ladder.inference.store.ModelStore;
import dev.ladder.inference.store.ProgressListener;
import dev.ladder.inference.store.PullManifest;
import dev.ladder.inference.store.StoreException;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "model", description = "Models: pull from the Hugging Face hub, make tiny test models, inspect.",
        subcommands = {ModelCommand.Pull.class, ModelCommand.MakeTiny.class, ModelCommand.Info.class, ModelCommand.Plan.class,
                ModelLogitsCommand.class})
final class ModelCommand extends GroupCommand {

    /** The model directory a spec names (a directory, or a pulled repo id {@code owner/name[@rev]}). */
    static Path resolve(String spec) {
        try {
            return ModelStore.fromEnvironment().resolve(spec);
        } catch (StoreException e) {
            throw new UserError(e.getMessage(), e);
        }
    }

    @Command(name = "pull", mixinStandardHelpOptions = true,
            description = {"Download a model repo from the Hugging Face hub into the Ladder cache (config, tokenizer, "
                    + "safetensors, and an ONNX export where asked or where the repo has no safetensors; resumes an "
                    + "interrupted pull). Prints the model directory last.",
                    "Environment: HF_TOKEN for gated models, HF_ENDPOINT for a mirror, LADDER_CACHE_DIR, LADDER_MODELS_DIR."})
    static final class Pull implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "HF_REPO_ID", description = "owner/name, e.g. meta-llama/Llama-3.2-1B-Instruct.")
        String repo;
        @Option(names = "--revision", paramLabel = "R", defaultValue = ModelStore.DEFAULT_REVISION,
                description = "Branch, tag or commit (default ${DEFAULT-VALUE}).")
        String revision;
        @Option(names = "--onnx", paramLabel = "auto|none|VARIANT", defaultValue = ModelStore.ONNX_AUTO,
                description = "The ONNX decoder export to pull ([onnx/]model[_VARIANT].onnx, the layout Optimum and "
                        + "transformers.js publish): a variant such as fp32, quantized, int8, fp16 or q4 (beside the "
                        + "safetensors when the repo has both), none, or ${DEFAULT-VALUE}: fp32 (else the first of "
                        + "quantized, int8, uint8, fp16) when the repo has no safetensors, else none. engine auto runs "
                        + "it on a CPU; the store's manifest records which.")
        String onnx;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ModelStore store;
            try {
                store = ModelStore.fromEnvironment();
            } catch (StoreException e) {
                throw new UserError(e.getMessage(), e);
            }
            PullProgress progress = new PullProgress(err, System.console() != null);
            Path dir;
            try {
                dir = store.pull(repo, revision, onnx, progress);
            } catch (StoreException e) {
                throw new UserError(e.getMessage(), e);
            } catch (IOException e) {
                progress.close();
                HubFailure f = HubFailure.of(e, store.endpoint());
                err.println("ladder: pull of " + repo + "@" + revision + " failed: " + f.cause() + (f.retryable()
                        ? " (run the command again to resume)"
                        : "; a retry fails the same way until the network or HF_ENDPOINT changes (store: "
                        + store.modelsDir() + ")"));
                return 1;
            } finally {
                progress.close();
            }
            PullManifest m = PullManifest.read(dir).orElseThrow();
            err.println("pulled " + repo + "@" + revision + (m.commit() == null ? "" : " (commit " + m.commit().substring(0, 12) + ")")
                    + ": " + m.files().size() + " files, " + Sizes.bytes(m.totalBytes())
                    + (m.onnxFile() == null ? "" : "; ONNX export " + m.onnxVariant() + " (" + m.onnxFile() + ")"));
            out.println(dir);
            return 0;
        }

        private static String oneLine(String s) {
            return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
        }
    }

    /** A progress bar on a terminal; one line per file otherwise. */
    static final class PullProgress implements ProgressListener, AutoCloseable {
        private final PrintWriter err;
        private final boolean bar;
        private ProgressBar pb;
        private long finishedBytes;
        private long current;

        PullProgress(PrintWriter err, boolean bar) {
            this.err = err;
            this.bar = bar;
        }

        @Override
        public void waiting(String repoId, String revision) {
            err.println("another pull of " + repoId + "@" + revision + " is running (another process sharing the store);"
                    + " waiting for it");
            err.flush();
        }

        @Override
        public void started(String repoId, String revision, List<HubFile> files, long totalBytes) {
            if (!bar) {
                err.println("pulling " + repoId + "@" + revision + ": " + files.size() + " files"
                        + (totalBytes >= 0 ? ", " + Sizes.bytes(totalBytes) : ""));
                return;
            }
            pb = new ProgressBarBuilder().setTaskName(repoId).setInitialMax(totalBytes)
                    .setStyle(ProgressBarStyle.ASCII).setUnit(" MiB", 1 << 20).showSpeed()
                    .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
        }

        @Override
        public void fileStarted(String name, long size, long resumeFrom) {
            current = resumeFrom;
            if (pb != null) {
                pb.setExtraMessage(" " + name);
                pb.stepTo(finishedBytes + resumeFrom);
            } else if (resumeFrom > 0) {
                err.println("  resuming " + name + " at " + Sizes.bytes(resumeFrom));
            }
        }

        @Override
        public void transferred(String name, long bytes) {
            current += bytes;
            if (pb != null) pb.stepTo(finishedBytes + current);
        }

        @Override
        public void fileFinished(String name, long size, boolean alreadyThere) {
            finishedBytes += size;
            current = 0;
            if (pb != null) {
                if (pb.getMax() >= 0 && pb.getMax() < finishedBytes) pb.maxHint(finishedBytes);
                pb.stepTo(finishedBytes);
            } else {
                err.println("  " + name + "  " + Sizes.bytes(size) + (alreadyThere ? "  (already there)" : ""));
            }
        }

        @Override
        public void close() {
            if (pb != null) {
                pb.close();
                pb = null;
            }
        }
    }

    @Command(name = "make-tiny", mixinStandardHelpOptions = true,
            description = "Write a random-weight model in Hugging Face layout (same shape, seed and dtype: same bytes) for tests and benchmarks.")
    static final class MakeTiny implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "DIR") Path dir;
        @Option(names = "--shape", defaultValue = "tiny", paramLabel = "tiny|smollm2-135m|llama3-2-1b|qwen2-5-0-5b|qwen2-tiny|llama3-rope-scaled-tiny",
                description = "Default ${DEFAULT-VALUE}.")
        String shape;
        @Option(names = "--seed", defaultValue = "1", paramLabel = "S") long seed;
        @Option(names = "--dtype", defaultValue = "f32", paramLabel = "f32|bf16|f16") String dtype;
        @Option(names = "--force", description = "Write into a non-empty DIR (its model files are replaced).") boolean force;

        static TinyModels.Shape shape(String name) {
            for (TinyModels.Shape s : TinyModels.Shape.values()) {
                if (cliName(s).equals(name.toLowerCase(Locale.ROOT).replace('.', '-'))) return s; // llama3.2-1b too
            }
            throw new UserError("unknown shape '" + name + "' (tiny, smollm2-135m, llama3-2-1b, qwen2-5-0-5b, qwen2-tiny, llama3-rope-scaled-tiny)");
        }

        static String cliName(TinyModels.Shape s) {
            return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static DType dtype(String name) {
            return switch (name.toLowerCase(Locale.ROOT)) {
                case "f32" -> DType.F32;
                case "bf16" -> DType.BF16;
                case "f16" -> DType.F16;
                default -> throw new UserError("--dtype must be f32, bf16 or f16, got '" + name + "'");
            };
        }

        @Override
        public Integer call() throws IOException {
            TinyModels.Shape s = shape(shape);
            DType d = dtype(dtype);
            Path target = dir.toAbsolutePath().normalize();
            if (Files.exists(target) && !Files.isDirectory(target)) throw new UserError("not a directory: " + dir);
            if (Files.isDirectory(target) && !force && !isEmpty(target)) {
                throw new UserError(dir + " is not empty (use --force to replace the model files in it)");
            }
            Path parent = target.getParent();
            try {
                Files.createDirectories(parent);
            } catch (IOException e) {
                throw new UserError("cannot create " + parent + ": " + e.getMessage(), e);
            }
            // write next to DIR, then move into place: an error leaves DIR as it was
            Path tmp = parent.resolve("." + target.getFileName() + ".tmp-" + Long.toHexString(System.nanoTime()));
            Files.createDirectory(tmp);
            try {
                TinyModels.write(tmp, s, seed, d);
                if (!Files.exists(target)) {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                } else {
                    removeModelFiles(target);
                    try (Stream<Path> files = Files.list(tmp)) {
                        for (Path f : files.toList()) {
                            Files.move(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
            } finally {
                FileTrees.deleteQuietly(tmp);
            }
            spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s model (%s, seed %d, %d parameters) to %s%n",
                    cliName(s), d.name().toLowerCase(Locale.ROOT), seed, s.parameters(), dir);
            return 0;
        }

        static boolean isEmpty(Path dir) throws IOException {
            try (Stream<Path> s = Files.list(dir)) {
                return s.findAny().isEmpty();
            }
        }

        /** Files a model directory is made of (never anything else the user keeps there). */
        private static void removeModelFiles(Path dir) throws IOException {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path f : s.filter(Files::isRegularFile).toList()) {
                    String n = f.getFileName().toString();
                    if (n.endsWith(".safetensors") || ModelStore.METADATA_FILES.contains(n)
                            || n.equals(PullManifest.FILE_NAME)) {
                        Files.delete(f);
                    }
                }
            }
        }
    }

    @Command(name = "info", mixinStandardHelpOptions = true,
            description = "Architecture, size, parameter count (from the tensor shapes), stored dtype, memory estimates.")
    static final class Info implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "MODEL", description = "A model directory or a pulled repo id owner/name[@revision].")
        String model;

        @Override
        public Integer call() throws IOException {
            Path dir = resolve(model);
            ModelConfig c;
            Map<DType, Long> byDtype = new LinkedHashMap<>();
            long params = 0;
            try {
                c = ModelConfig.read(dir);
                try (Weights w = Weights.open(dir)) {
                    for (String n : w.names()) {
                        TensorInfo t = w.info(n);
                        params += t.numel();
                        byDtype.merge(t.dtype(), t.numel(), Long::sum);
                    }
                }
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"model", dir.toString()});
            PullManifest.read(dir).ifPresent(m -> rows.add(new String[] {"pulled", m.repo() + "@" + m.revision()
                    + (m.commit() == null ? "" : " (commit " + m.commit().substring(0, 12) + ")")
                    + (m.pulledAt() == null ? "" : " at " + m.pulledAt())}));
            PullManifest.read(dir).filter(m -> m.onnxFile() != null).ifPresent(m -> rows.add(new String[] {"onnx export",
                    m.onnxVariant() + " (" + m.onnxFile() + "; engine auto runs it on a CPU)"}));
            String hfArch = architectures(dir);
            rows.add(new String[] {"architecture", c.architecture().name().toLowerCase(Locale.ROOT) + (hfArch.isEmpty() ? "" : " (" + hfArch + ")")});
            rows.add(new String[] {"layers", Integer.toString(c.numLayers())});
            rows.add(new String[] {"hidden", c.hiddenSize() + " (intermediate " + c.intermediateSize() + ")"});
            rows.add(new String[] {"heads", c.numHeads() + " query, " + c.numKvHeads() + " key/value, head dim " + c.headDim()});
            rows.add(new String[] {"vocab", Integer.toString(c.vocabSize())});
            rows.add(new String[] {"context", c.maxPositions() + " positions, rope theta " + trim(c.ropeTheta())
                    + (c.ropeScaling() == null ? "" : ", llama3 rope scaling x" + trim(c.ropeScaling().factor()))});
            rows.add(new String[] {"tied embeddings", c.tieWordEmbeddings() ? "yes" : "no"});
            rows.add(new String[] {"parameters", params + " (" + Sizes.count(params) + ")"});
            rows.add(new String[] {"stored dtype", dtypes(byDtype, params)
                    + (c.torchDtype() == null ? "" : " (config: " + c.torchDtype() + ")")});
            List<Path> files = modelFiles(dir);
            long size = 0;
            for (Path f : files) size += Files.size(f);
            rows.add(new String[] {"files", files.size() + " files, " + Sizes.bytes(size)});
            int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
            for (String[] r : rows) out.println(r[0] + " ".repeat(width - r[0].length() + 2) + r[1]);

            out.println();
            // the memory plan's own figures (one place for what the engine holds): weights with the RoPE tables of
            // the engine's default context, KV cache of one row of 1,000 tokens
            TextTable t = new TextTable(List.of("weights as", "on", "weights", "KV cache / 1k tokens", "KV dtype"))
                    .alignRight(2).alignRight(3);
            int context = Math.min(EngineLimits.defaultContext(c), 1000);
            for (WeightFormat f : WeightFormat.values()) {
                for (DeviceKind d : f == WeightFormat.F32 ? List.of(DeviceKind.CPU) : List.of(DeviceKind.CUDA)) {
                    MemoryRequest weights = new MemoryRequest(f, d, 1, EngineLimits.defaultContext(c), 1);
                    MemoryRequest kv = new MemoryRequest(f, d, 1, context, 1);
                    t.add(List.of(f.cliName(), d.cliName(), Sizes.bytes(MemoryPlan.weightBytes(c, weights)),
                            Sizes.bytes(MemoryPlan.kvCacheBytes(c, kv) * 1000 / context),
                            f.computeBytes(d) == 4 ? "f32" : "f16"));
                }
            }
            t.print(out);
            out.println("(the whole plan, with KV cache, workspace and a budget: ladder model plan " + model + " --device ...)");
            return 0;
        }

        private static String trim(double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
        }

        private static String dtypes(Map<DType, Long> byDtype, long params) {
            if (byDtype.isEmpty()) return "-";
            if (byDtype.size() == 1) return byDtype.keySet().iterator().next().name();
            List<String> parts = new ArrayList<>();
            byDtype.entrySet().stream().sorted(Map.Entry.<DType, Long>comparingByValue().reversed())
                    .forEach(e -> parts.add(String.format(Locale.ROOT, "%s %.1f%%", e.getKey().name(), 100.0 * e.getValue() / params)));
            return String.join(", ", parts);
        }

        private static String architectures(Path dir) {
            try {
                JsonNode a = new ObjectMapper().readTree(dir.resolve(ModelConfig.CONFIG_FILE).toFile()).path("architectures");
                List<String> names = new ArrayList<>();
                a.forEach(n -> names.add(n.asText()));
                return String.join(", ", names);
            } catch (IOException e) {
                return "";
            }
        }

        private static List<Path> modelFiles(Path dir) throws IOException {
            try (Stream<Path> s = Files.list(dir)) {
                return s.filter(Files::isRegularFile).filter(p -> {
                    String n = p.getFileName().toString();
                    return !n.startsWith(".") && !n.endsWith(".part") && !n.equals(PullManifest.FILE_NAME);
                }).sorted().toList();
            }
        }
    }

    @Command(name = "plan", mixinStandardHelpOptions = true,
            description = {"Whether a model fits a device, before loading it: weights, KV cache, workspace and "
                    + "overhead as the djl engine would hold them, computed from config.json alone (no weights needed). "
                    + "When it does not fit, says what would: int8 weights, fewer rows or a shorter context.",
                    "Exit status: 0 fits, 1 does not fit, 2 user error."})
    static final class Plan implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Parameters(paramLabel = "MODEL", description = "A model directory (config.json is enough) or a pulled repo id "
                + "owner/name[@revision].")
        String model;
        @Option(names = "--device", defaultValue = "cpu", paramLabel = "cpu|cuda", description = "Default ${DEFAULT-VALUE}.")
        String device;
        @Option(names = {"--gpu-memory", "--memory"}, paramLabel = "SIZE",
                description = "Memory budget, e.g. 15GiB (a 16 GB T4), 16GB, 800MiB. Required with --device cuda; on cpu "
                        + "the default is the machine's physical memory (MemTotal of /proc/meminfo).")
        String memory;
        @Option(names = "--dtype", defaultValue = "auto", paramLabel = "f32|f16|int8|auto",
                description = "Weight format (default ${DEFAULT-VALUE}: f32 on cpu; f16 on cuda, int8 when the budget is "
                        + "under 20 GB and f16 does not fit).")
        String dtype;
        @Option(names = "--rows", paramLabel = "N", description = "Candidate rows decoded together (default: what "
                + "the experiment's rungs decode at once; 6 for the shipped ladder).")
        Integer rows;
        @Option(names = "--context", paramLabel = "N", description = "Tokens per row, prompt and generated (default: "
                + "the experiment's prompt budget + max_new_tokens; 1280 for the shipped ladder).")
        Integer context;
        @Option(names = "--experiment", paramLabel = "FILE", description = "Plan for this experiment's workload (default: "
                + "experiments/classicmodels-ladder.yaml of the checkout; without one, the engine's limits: 16 rows x "
                + "min(max_position_embeddings, 8192) tokens).")
        Path experiment;
        @Option(names = "--prefill-tokens", paramLabel = "N", description = "Most padded prompt tokens prefilled in "
                + "one pass (default 4096, the engine's).")
        Integer prefillTokens;

        private String workloadFrom;

        /** The checkout's ladder experiment, whose workload the plan assumes unless told otherwise; null without one. */
        private static Path shippedLadder() {
            String home = System.getProperty("ladder.home");
            if (home == null || home.isBlank()) return null;
            Path f = Path.of(home, "experiments", "classicmodels-ladder.yaml");
            return Files.isRegularFile(f) ? f : null;
        }

        @Override
        public Integer call() {
            Path dir = resolve(model);
            ModelConfig c;
            try {
                c = ModelConfig.read(dir);
            } catch (ModelException e) {
                throw new UserError(e.getMessage(), e);
            }
            DeviceKind kind = parse(() -> DeviceKind.parse(device));
            long budget;
            String budgetFrom;
            if (memory != null) {
                budget = parse(() -> MemorySize.parse(memory));
                budgetFrom = "--gpu-memory " + memory.strip();
            } else if (kind == DeviceKind.CPU) {
                budget = MemorySize.physicalMemory();
                budgetFrom = "physical memory, MemTotal of /proc/meminfo";
            } else {
                throw new UserError("--gpu-memory is required with --device cuda (e.g. 15GiB for a 16 GB T4)");
            }
            MemoryRequest defaults = MemoryRequest.defaults(c, WeightFormat.F32, kind);
            String workloadFrom = "the engine's limits";
            int defaultRows = defaults.rows();
            int defaultContext = defaults.context();
            Path file = experiment != null ? experiment : shippedLadder();
            if (file != null && (rows == null || context == null)) {
                var e = parse(() -> ExperimentLoader.load(file));
                var w = ModelLoader.Workload.of(e, e.rungs());
                defaultRows = w.rows();
                defaultContext = Math.min(w.context(), c.maxPositions());
                workloadFrom = file.getFileName() + "'s rungs";
            }
            int r = orDefault(rows, defaultRows);
            int ctx = orDefault(context, defaultContext);
            this.workloadFrom = rows != null && context != null ? "--rows, --context" : workloadFrom;
            int prefill = orDefault(prefillTokens, defaults.prefillTokens());
            if (ctx < 2) throw new UserError("--context must be at least 2 (one prompt and one generated token), got " + ctx);
            if (ctx > c.maxPositions()) {
                throw new UserError("--context " + ctx + " is more than the model's " + c.maxPositions()
                        + " max positions (max_position_embeddings)");
            }
            boolean auto = dtype.strip().equalsIgnoreCase("auto");
            WeightFormat format = auto ? MemoryPlan.autoFormat(c, kind, budget, r, ctx, prefill)
                    : parse(() -> WeightFormat.parse(dtype));
            Path name = dir.getFileName();
            MemoryPlan plan = MemoryPlan.of(name == null ? model : name.toString(), c,
                    new MemoryRequest(format, kind, r, ctx, prefill), budget);
            print(plan, dir, auto, budgetFrom);
            return plan.fits() ? 0 : 1;
        }

        private void print(MemoryPlan plan, Path dir, boolean auto, String budgetFrom) {
            PrintWriter out = spec.commandLine().getOut();
            ModelConfig c = plan.config();
            MemoryRequest q = plan.request();
            int cb = q.format().computeBytes(q.device());
            String computeType = cb == 4 ? "f32" : "f16";
            out.println("model    " + dir + " (" + Sizes.count(MemoryPlan.parameters(c)) + " parameters)");
            out.println("device   " + q.device().cliName() + ", budget " + MemorySize.format(plan.budgetBytes())
                    + " (" + budgetFrom + ")");
            out.println("weights  " + q.format().cliName() + (auto ? " (--dtype auto)" : "")
                    + (q.format() == WeightFormat.INT8 ? ", compute in " + computeType : ""));
            out.println("workload " + q.rows() + (q.rows() == 1 ? " row" : " rows") + " x " + q.context() + " tokens ("
                    + workloadFrom + ")");
            out.println();
            TextTable t = new TextTable(List.of("memory", "size", "for")).alignRight(1);
            String weightsFor = switch (q.format()) {
                case INT8 -> "int8 linear layers + per-row " + computeType + " scales; " + computeType
                        + " embeddings" + (c.tieWordEmbeddings() ? " (tied head)" : " and head") + ", f32 norms, RoPE";
                default -> computeType + " weights" + (c.tieWordEmbeddings() ? " (tied head)" : "")
                        + ", f32 norms, RoPE tables";
            };
            long perToken = 2L * c.numLayers() * c.numKvHeads() * c.headDim() * cb;
            t.add(List.of("weights", MemorySize.format(plan.weightBytes()), weightsFor));
            t.add(List.of("KV cache", MemorySize.format(plan.kvCacheBytes()), q.rows() + " rows x " + q.context()
                    + " tokens, " + MemorySize.format(perToken) + " per token"));
            t.add(List.of("workspace", MemorySize.format(plan.workspaceBytes()), plan.workspacePass().describe()
                    + " (prefill chunks of " + q.prefillTokens() + " tokens)"));
            t.add(List.of("overhead", MemorySize.format(plan.overheadBytes()),
                    q.device() == DeviceKind.CUDA ? "CUDA context, kernels, allocator slack" : "JVM and libtorch"));
            t.add(List.of("total", MemorySize.format(plan.totalBytes()), ""));
            t.add(List.of("budget", MemorySize.format(plan.budgetBytes()), ""));
            t.print(out);
            out.println();
            out.println("fits     " + (plan.fits() ? "yes" : "no"));
            if (!plan.fits()) out.println("instead  " + plan.suggestion());
        }

        /** A flag's value (its range: FlagBounds), else the default. */
        private static int orDefault(Integer value, int dflt) {
            return value == null ? dflt : value;
        }

        private static <T> T parse(Supplier<T> parser) {
            try {
                return parser.get();
            } catch (IllegalArgumentException e) {
                throw new UserError(e.getMessage(), e);
            }
        }
    }

    /** Human sizes: binary units for bytes, K/M/B for counts. */
    static final class Sizes {
        private Sizes() {}

        static String bytes(long b) {
            if (b < 1024) return b + " B";
            String[] units = {"KiB", "MiB", "GiB", "TiB"};
            double v = b;
            int i = -1;
            while (v >= 1024 && i < units.length - 1) {
                v /= 1024;
                i++;
            }
            return String.format(Locale.ROOT, "%.1f %s", v, units[i]);
        }

        static String count(long n) {
            if (n < 1000) return Long.toString(n);
            String[] units = {"K", "M", "B", "T"};
            double v = n;
            int i = -1;
            while (v >= 1000 && i < units.length - 1) {
                v /= 1000;
                i++;
            }
            return String.format(Locale.ROOT, "%.1f%s", v, units[i]);
        }
    }
}
