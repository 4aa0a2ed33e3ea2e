package dev.ladder.example.engine;

import dev.ladder.eval.run.Fingerprints;
import dev.ladder.eval.run.FolderEngine;
import dev.ladder.eval.run.ModelLoader;
import dev.ladder.inference.engine.Engine;
import dev.ladder.inference.engine.EngineContext;
import dev.ladder.inference.engine.EngineLoad;
import dev.ladder.inference.engine.ModelFields;
import dev.ladder.inference.engine.ModelIdentity;
import dev.ladder.inference.text.PromptFormats;
import dev.ladder.inference.text.Tokenizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An engine defined only in test sources, plugged in the way every engine is: this package and one line in
 * {@code META-INF/services/dev.ladder.inference.engine.Engine}. It answers every request with one canned text (its
 * own field {@code reply}, default {@link #DEFAULT_REPLY}), tokenized by the model folder's tokenizer, so that a run,
 * ask, generate and serve can be driven end to end without weights. docs/extending.md walks through it.
 */
public final class CannedEngine implements Engine {

    public static final String NAME = "canned";
    public static final String DEFAULT_REPLY = "SELECT COUNT(*) FROM customers";

    @Override
    public String name() {
        return NAME;
    }

    /** A folder (for its tokenizer and prompt format) and the reply; no adapter, dtype or device to choose. */
    @Override
    public List<String> fields() {
        return List.of("path", "reply");
    }

    @Override
    public void check(ModelFields model) {
        for (String none : List.of("adapter", "dtype", "device", "merge_base")) {
            if (model.get(none) != null) throw model.refuse(none, "engine canned takes no " + none + ": it has no weights");
        }
        String reply = model.get("reply");
        if (reply != null && reply.isBlank()) throw model.refuse("reply", "engine canned needs a reply that is not blank");
    }

    /** The folder as any folder engine finds it (a command looks in the store; a run may pull). */
    @Override
    public ModelIdentity identify(ModelFields model, EngineContext context) {
        FolderEngine.Locator locator = context.fact(FolderEngine.Locator.class).orElse(ModelLoader::resolve);
        Path dir = locator.folder(model.get("path"), context.log());
        if (!Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw model.refuse("path", dir + " has no tokenizer.json: engine canned tokenizes its reply with the folder's");
        }
        return new ModelIdentity(dir, null, Fingerprints.ofDirectory(dir) + "/" + reply(model), "");
    }

    @Override
    public EngineLoad load(ModelFields model, ModelIdentity given, EngineContext context) {
        ModelIdentity identity = given != null ? given : identify(model, context);
        context.say("loading " + identity.dir() + " with the canned engine ...");
        CannedModel canned = new CannedModel(identity.dir().getFileName().toString(), reply(model),
                Tokenizer.load(identity.dir()), PromptFormats.forModel(identity.dir()));
        return new EngineLoad(canned, NAME, "text", "cpu", Map.of("engine", NAME, "reply", reply(model)),
                identity.modelPrint());
    }

    private static String reply(ModelFields model) {
        return model.get("reply", DEFAULT_REPLY);
    }
}
