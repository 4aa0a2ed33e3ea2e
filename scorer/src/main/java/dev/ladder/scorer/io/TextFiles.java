package dev.ladder.scorer.io;

import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The one way Ladder reads a text input (predictions, golds, benchmarks, experiment files, SQL files):
 * strict UTF-8, a leading byte-order mark skipped, and every problem a one-line {@link UserError}
 * naming the file, and the line where there is one.
 */
public final class TextFiles {

    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    private TextFiles() {}

    /** The whole text of {@code file}. */
    public static String read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new UserError("no such file: " + file);
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage(), e);
        }
        return decode(bytes, file.toString());
    }

    /** The whole text of {@code in}; {@code origin} names it in messages. */
    public static String read(InputStream in, String origin) {
        try {
            return decode(in.readAllBytes(), origin);
        } catch (IOException e) {
            throw new UserError("cannot read " + origin + ": " + e.getMessage(), e);
        }
    }

    /** Lines as {@link java.io.BufferedReader#readLine()} splits them (\n, \r\n or \r; no empty last line). */
    public static List<String> lines(Path file) {
        return read(file).lines().toList();
    }

    public static List<String> lines(InputStream in, String origin) {
        return read(in, origin).lines().toList();
    }

    /** Strict UTF-8 without a leading BOM; malformed bytes are an error naming their line. */
    public static String decode(byte[] bytes, String origin) {
        int start = startsWithBom(bytes) ? BOM.length : 0;
        ByteBuffer in = ByteBuffer.wrap(bytes, start, bytes.length - start);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) result = decoder.flush(out);
        if (result.isError()) {
            throw new UserError(origin + ": not UTF-8 at line " + lineAt(bytes, in.position()));
        }
        return out.flip().toString();
    }

    private static boolean startsWithBom(byte[] bytes) {
        return bytes.length >= BOM.length && bytes[0] == BOM[0] && bytes[1] == BOM[1] && bytes[2] == BOM[2];
    }

    /** 1-based line of byte {@code offset}: a newline byte never occurs inside a UTF-8 sequence. */
    private static int lineAt(byte[] bytes, int offset) {
        int line = 1;
        for (int i = 0; i < offset && i < bytes.length; i++) {
            if (bytes[i] == '\n') line++;
        }
        return line;
    }
}
