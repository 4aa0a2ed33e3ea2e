package dev.ladder.inference.text;

import java.util.Arrays;

/**
 * Turns a generated sequence into text one token at a time, for streaming and for stop-string checks, such that the
 * pieces put together are exactly {@code tokenizer.decode(allIds)}.
 *
 * <h2>How</h2>
 * A byte-level BPE token can end in the middle of a UTF-8 character (an emoji or a CJK character often spans two or
 * three tokens), and decoding the tokens one by one would give U+FFFD pieces. So every {@link #push} decodes the
 * <em>whole</em> generated tail again and hands out only what is new since the last call, holding back a trailing
 * run of U+FFFD: those may be the first bytes of a character the next token completes. Because UTF-8 is
 * self-synchronising, text in front of the held-back run never changes when more bytes come, so the pieces are
 * always a prefix of the final decode; {@link #finish()} hands out whatever is still held back (U+FFFD that no token
 * completed stays, just as in the full decode).
 *
 * <p>Cost: one decode of the tail per token, O(n) each, O(n²) per sequence; for the few hundred to few thousand
 * tokens of a SQL answer that is well under a millisecond per token, small next to a forward pass, and it keeps the
 * equality exact without knowing anything about the decoder. A decoder that rewrites text it already produced (BERT
 * WordPiece clean-up; no generative model Ladder uses) is reported with an {@link IllegalStateException}.
 *
 * <p>Not thread-safe: one instance per sequence.
 */
public final class IncrementalDetokenizer {

    private static final char REPLACEMENT = '\uFFFD';

    private final Tokenizer tokenizer;
    private final boolean skipSpecialTokens;
    private int[] ids = new int[64];
    private int size;
    /** Everything handed out so far. */
    private String emitted = "";
    /** The full decode after the last push, held-back tail included. */
    private String decoded = "";

    IncrementalDetokenizer(Tokenizer tokenizer, boolean skipSpecialTokens) {
        this.tokenizer = tokenizer;
        this.skipSpecialTokens = skipSpecialTokens;
    }

    /**
     * Adds one generated token and returns the text it completes: possibly empty (the token is the start of a
     * multi-byte character, or a skipped special token), possibly more than the token's own text (it completes a
     * character begun earlier).
     */
    public String push(int id) {
        ids = Tokenizer.grow(ids, size + 1);
        ids[size++] = id;
        try {
            decoded = tokenizer.decodeRange(ids, size, skipSpecialTokens);
        } catch (RuntimeException e) {
            size--; // the bad id is not part of the sequence
            throw e;
        }
        int end = decoded.length();
        while (end > emitted.length() && decoded.charAt(end - 1) == REPLACEMENT) {
            end--;
        }
        return emitUpTo(end);
    }

    /** Adds several tokens; returns the text they complete together. */
    public String pushAll(int... newIds) {
        StringBuilder out = new StringBuilder();
        for (int id : newIds) {
            out.append(push(id));
        }
        return out.toString();
    }

    /**
     * Ends the sequence: returns what is still held back (U+FFFD of bytes no token completed), after which
     * {@link #text()} equals {@code tokenizer.decode(ids(), skipSpecialTokens)}. Tokens may still be pushed after it.
     */
    public String finish() {
        return emitUpTo(decoded.length());
    }

    private String emitUpTo(int end) {
        if (!decoded.startsWith(emitted)) {
            throw new IllegalStateException("the decoder of " + tokenizer.path()
                    + " rewrote text it had already produced; incremental decoding is not possible with it");
        }
        if (end <= emitted.length()) {
            return "";
        }
        String piece = decoded.substring(emitted.length(), end);
        emitted = decoded.substring(0, end);
        return piece;
    }

    /** The text handed out so far (what stop strings should be checked against). */
    public String text() {
        return emitted;
    }

    /** The tokens pushed so far. */
    public int[] ids() {
        return Arrays.copyOf(ids, size);
    }

    /** How many tokens were pushed. */
    public int size() {
        return size;
    }
}
