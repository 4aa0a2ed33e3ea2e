package dev.ladder.inference.serve;

import dev.ladder.inference.GenerationRequest;

/**
 * A validated request, ready for the engine.
 *
 * @param chat        from {@code /v1/chat/completions} (else {@code /v1/completions})
 * @param generation  what the engine runs
 * @param logprobs    whether the answer carries each generated token's log-probability
 * @param tokensAsIds write log-prob tokens as {@code token_id:<id>} (vLLM's {@code return_tokens_as_token_ids})
 */
record ApiRequest(boolean chat, GenerationRequest generation, boolean logprobs, boolean tokensAsIds) {}
