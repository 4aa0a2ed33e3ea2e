package dev.ladder.inference.engine;

import dev.ladder.inference.LanguageModel;
import java.util.Map;

/**
 * A loaded model and what a run records of it.
 *
 * @param engine        the engine that loaded it (for {@code auto}, the one it picked)
 * @param dtype         the weights' precision as loaded ({@code f32}, {@code export}...), or null where the engine has
 *                      none of its own (a server, the oracle)
 * @param device        where it runs ({@code cpu}, {@code cuda:0}), or null where the engine has no device of its own
 * @param environment   what environment.json says of it, keys relative to {@code models.ID.} ({@code engine},
 *                      {@code device}...)
 * @param cacheIdentity what keys its completions in the generation cache (beside the adapter's print), or null for
 *                      a model whose answers are never cached (they depend on more than the prompt)
 */
public record EngineLoad(LanguageModel model, String engine, String dtype, String device, Map<String, String> environment,
                         String cacheIdentity) {

    public EngineLoad {
        environment = Map.copyOf(environment);
    }
}
