package dev.ladder.inference.serve;

import java.util.ArrayList;
import java.util.List;

/**
 * The text each generated token adds, for log-probs ({@code tokens}, {@code text_offset}, chat {@code bytes}).
 *
 * <p>Incremental, as vLLM detokenizes: a token's piece is what decoding the ids since the last emitted piece adds to
 * that decoding without it. A token that ends inside a multi-byte character (its text ends in U+FFFD) adds the empty
 * piece, and the token that completes the character carries all of it. Each step decodes a few ids, not the whole
 * prefix, so a long candidate costs linear time.
 */
final class TokenPieces {

    private static final char REPLACEMENT = '\uFFFD';

    private TokenPieces() {}

    static List<String> of(ServedModel.TokenDecoder decoder, List<Integer> ids) {
        List<String> out = new ArrayList<>(ids.size());
        int prefix = 0;
        int read = 0;
        for (int i = 0; i < ids.size(); i++) {
            String before = prefix == read ? "" : decoder.decode(ids.subList(prefix, read));
            String after = decoder.decode(ids.subList(prefix, i + 1));
            boolean last = i == ids.size() - 1;
            if (after.length() > before.length() && (last || after.charAt(after.length() - 1) != REPLACEMENT)) {
                out.add(after.substring(before.length()));
                prefix = read;
                read = i + 1;
            } else {
                out.add("");
            }
        }
        return out;
    }
}
