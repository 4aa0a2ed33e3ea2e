package dev.ladder.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.Candidate;
import dev.ladder.inference.ChatMessage;
import dev.ladder.inference.Completion;
import dev.ladder.inference.GenerationRequest;
import dev.ladder.inference.LanguageModel;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.PromptFormat;
import dev.ladder.inference.Sampling;
import dev.ladder.inference.llm.DjlLanguageModel;
import dev.ladder.inference.model.ModelConfig;
import dev.ladder.inference.model.ModelException;
import dev.ladder.inference.text.CompletionFormat;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;
import dev.ladder.sql.db.UserError;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate text with a model (any engine: djl, onnx, or a served one with --server) and print it.",
                "Without --chat the prompt is plain text after the model's BOS; with --chat it is a user turn in the "
                        + "model's chat format. Greedy unless --temperature, --top-p or --top-k is given."})
final class GenerateCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Mixin ModelFlags modelFlags;
    @Option(names = "--chat", description = "Format the prompt as a user turn of the model's chat template.") boolean chat;
    @Option(names = "--system", paramLabel = "TEXT", description = "A system message (chat) or text before the prompt.") String system;
    @Option(names = "--greedy", description = "Arg-max decoding (the default when no sampling option is given).") boolean greedy;
    @Option(names = "--temperature", paramLabel = "T") Double temperature;
    @Option(names = "--top-p", paramLabel = "P") Double topP;
    @Option(names = "--top-k", paramLabel = "K") Integer topK;
    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Sampler seed (default ${DEFAULT-VALUE}).") long seed;
    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "128", description = "Most new tokens (default ${DEFAULT-VALUE}).") int maxTokens;
    @Option(names = "--stop", paramLabel = "S", description = "Stop string (repeatable); the text is cut before it.") List<String> stops = new ArrayList<>();
    @Option(names = "-n", paramLabel = "N", defaultValue = "1", description = "Candidates (default ${DEFAULT-VALUE}).") int n;
    @Option(names = "--prompt-ids", paramLabel = "IDS", description = "The prompt as comma-separated token ids instead of text.") String promptIds;
    @Option(names = "--json", description = "Print {\"ids\":[...],\"text\":...} (one line per candidate).") boolean json;
    @Parameters(arity = "0..1", paramLabel = "PROMPT") String prompt;

    @Override
    public Integer call() throws Exception {
        List<Integer> ids = promptIds == null ? null : parseIds(promptIds);
        if (ids != null && prompt != null) throw new UserError("give a text prompt or --prompt-ids, not both");
        if (ids == null && prompt == null) throw new UserError("no prompt: give a text prompt or --prompt-ids");
        if (ids != null && (chat || system != null)) throw new UserError("--prompt-ids cannot be combined with --chat or --system");
        Sampling sampling = sampling();
        if (stops.contains("")) throw new UserError("--stop: an empty stop string would stop at once");

        Engine engine = modelFlags.engine();
        // a model in a folder here has its tokenizer; a model elsewhere (a server) tokenizes for itself
        boolean served = !engine.inProcess();
        Path dir = served ? null : ModelCommand.resolve(modelFlags.model);
        Tokenizer tokenizer = null;
        try {
            if (ids != null && dir != null && Files.isRegularFile(dir.resolve("config.json"))) {
                ModelConfig config = ModelConfig.read(dir);
                for (int id : ids) {
                    if (id >= config.vocabSize()) {
                        throw new UserError("--prompt-ids: id " + id + " is outside the vocabulary (0.." + (config.vocabSize() - 1) + ")");
                    }
                }
            }
            // a server stops at its model's end ids itself; in-process, the tokenizer also knows <|eot_id|> and the like
            tokenizer = served ? null : Tokenizer.load(dir);
            Set<Integer> stopIds = tokenizer == null ? Set.of() : new LinkedHashSet<>(tokenizer.eosIds());
            ModelLoader.Workload workload = new ModelLoader.Workload(
                    Math.min(n, DjlLanguageModel.Options.DEFAULT.maxBatchRows()), ModelLoader.PROMPT_BUDGET + maxTokens);
            Completion completion;
            try (LanguageModel lm = modelFlags.open(engine, workload, null)) {
                if (lm instanceof DjlLanguageModel djl) {
                    for (String w : djl.model().loadReport().warnings()) spec.commandLine().getErr().println("warning: " + w);
                }
                String text = ids != null ? null : promptText(dir, lm);
                GenerationRequest request = new GenerationRequest(text, ids, maxTokens, sampling, n, seed, stopIds, stops);
                completion = modelFlags.call(() -> lm.generate(List.of(request)).get(0));
            }
            print(completion);
            return 0;
        } catch (ModelException e) {
            throw new UserError(e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            // what the engine refuses about a request (e.g. a prompt that encodes to nothing) is the user's to fix
            throw new UserError((dir != null ? dir : modelFlags.model) + ": " + e.getMessage(), e);
        } finally {
            if (tokenizer != null) tokenizer.close();
        }
    }

    private void print(Completion completion) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ObjectMapper mapper = new ObjectMapper();
        List<Candidate> cs = completion.candidates();
        for (int i = 0; i < cs.size(); i++) {
            Candidate c = cs.get(i);
            if (json) {
                ObjectNode o = mapper.createObjectNode();
                o.putArray("ids").addAll(c.tokenIds().stream().map(mapper.getNodeFactory()::numberNode).toList());
                o.put("text", c.text());
                out.println(mapper.writeValueAsString(o));
            } else {
                if (cs.size() > 1) out.println("--- candidate " + (i + 1) + " ---");
                out.println(c.text());
            }
        }
        out.flush();
    }

    static List<Integer> parseIds(String s) {
        List<Integer> ids = new ArrayList<>();
        for (String part : s.split(",", -1)) {
            String p = part.strip();
            int id;
            try {
                id = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new UserError("--prompt-ids must be comma-separated integers, got '" + p + "' in '" + s + "'");
            }
            if (id < 0) throw new UserError("--prompt-ids: token ids are >= 0, got " + id);
            ids.add(id);
        }
        return ids;
    }

    private Sampling sampling() {
        boolean sampled = temperature != null || topP != null || topK != null;
        if (greedy && sampled) throw new UserError("--greedy cannot be combined with --temperature, --top-p or --top-k");
        if (!sampled) return Sampling.GREEDY;
        try {
            return new Sampling(temperature == null ? 1.0 : temperature, topK == null ? 0 : topK, topP == null ? 1.0 : topP);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage().replace("temperature", "--temperature").replace("topK", "--top-k")
                    .replace("topP", "--top-p"), e);
        }
    }

    /**
     * The prompt as the model reads it: a user turn of its chat format with {@code --chat}; else the text after the
     * model's BOS (a server adds its own BOS to a completion prompt, as its tokenizer does).
     *
     * @param dir the model folder, or null for a served model
     */
    private String promptText(Path dir, LanguageModel lm) {
        List<ChatMessage> messages = new ArrayList<>();
        if (system != null) messages.add(ChatMessage.system(system));
        messages.add(ChatMessage.user(prompt));
        PromptFormat format;
        if (chat) {
            format = dir == null ? lm.promptFormat() : PromptFormats.forModel(dir);
            if (format instanceof CompletionFormat) {
                throw new UserError("--chat needs a chat model: " + (dir == null ? "the server reports no chat template for "
                        + modelFlags.model : dir + " has no Llama-3 or ChatML chat_template in tokenizer_config.json"));
            }
        } else {
            CompletionFormat own = dir == null ? new CompletionFormat("") : PromptFormats.completionFor(dir);
            // a prompt that already starts with the BOS text must not get a second one
            format = !own.bos().isEmpty() && prompt.startsWith(own.bos()) ? new CompletionFormat("") : own;
        }
        return format.format(messages);
    }

}
