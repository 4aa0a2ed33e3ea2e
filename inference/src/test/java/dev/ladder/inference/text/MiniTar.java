package dev.ladder.inference.text;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Just enough of a tar reader for npm package tarballs: ustar headers (name with prefix), GNU long names ('L'),
 * pax extended headers ('x' path, 'g' ignored), base-256 sizes. Regular files only; everything else is skipped.
 */
final class MiniTar {

    private static final int BLOCK = 512;

    private MiniTar() {
    }

    /** The contents of the regular files whose names {@code wanted} accepts, by name, in archive order. */
    static Map<String, byte[]> extract(InputStream in, Predicate<String> wanted) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        byte[] header = new byte[BLOCK];
        String nextName = null; // from a GNU 'L' or pax 'x' entry
        while (true) {
            if (!readBlock(in, header)) {
                return out; // no end-of-archive blocks: tolerated
            }
            if (isZero(header)) {
                return out;
            }
            String name = cString(header, 0, 100);
            String prefix = cString(header, 345, 155);
            if (!prefix.isEmpty() && "ustar".equals(cString(header, 257, 6).trim())) {
                name = prefix + "/" + name;
            }
            long size = size(header);
            char type = (char) header[156];
            switch (type) {
                case 'L' -> nextName = stripTrailingNul(new String(read(in, size), StandardCharsets.UTF_8));
                case 'x' -> {
                    String path = paxPath(new String(read(in, size), StandardCharsets.UTF_8));
                    if (path != null) {
                        nextName = path;
                    }
                }
                case '0', '\0', '7' -> {
                    String effective = nextName != null ? nextName : name;
                    nextName = null;
                    if (wanted.test(effective)) {
                        out.put(effective, read(in, size));
                    } else {
                        skip(in, size);
                    }
                }
                default -> { // directories, links, 'g' global pax headers, ...
                    nextName = null;
                    skip(in, size);
                }
            }
        }
    }

    private static byte[] read(InputStream in, long size) throws IOException {
        if (size > Integer.MAX_VALUE - 16) {
            throw new IOException("tar entry too large: " + size);
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length != size) {
            throw new EOFException("truncated tar entry");
        }
        skipPadding(in, size);
        return data;
    }

    private static void skip(InputStream in, long size) throws IOException {
        in.skipNBytes(size);
        skipPadding(in, size);
    }

    private static void skipPadding(InputStream in, long size) throws IOException {
        long rest = size % BLOCK;
        if (rest != 0) {
            in.skipNBytes(BLOCK - rest);
        }
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int n = in.readNBytes(block, 0, BLOCK);
        if (n == 0) {
            return false;
        }
        if (n != BLOCK) {
            throw new EOFException("truncated tar header");
        }
        return true;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static long size(byte[] header) throws IOException {
        if ((header[124] & 0x80) != 0) { // base-256 (GNU) for sizes of 8 GiB and more
            long v = header[124] & 0x7f;
            for (int i = 125; i < 136; i++) {
                v = (v << 8) | (header[i] & 0xff);
            }
            return v;
        }
        String octal = cString(header, 124, 12).trim();
        try {
            return octal.isEmpty() ? 0 : Long.parseLong(octal, 8);
        } catch (NumberFormatException e) {
            throw new IOException("bad tar size field: '" + octal + "'");
        }
    }

    private static String cString(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        return new String(b, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static String stripTrailingNul(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '\0') {
            end--;
        }
        return s.substring(0, end);
    }

    /** Records are {@code "<len> <key>=<value>\n"}, len counting the whole record in bytes. */
    private static String paxPath(String records) {
        byte[] bytes = records.getBytes(StandardCharsets.UTF_8);
        int pos = 0;
        String path = null;
        while (pos < bytes.length) {
            int space = pos;
            while (space < bytes.length && bytes[space] != ' ') {
                space++;
            }
            int len;
            try {
                len = Integer.parseInt(new String(bytes, pos, space - pos, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                return path;
            }
            if (len <= 0 || pos + len > bytes.length) {
                return path;
            }
            String record = new String(bytes, space + 1, pos + len - space - 2, StandardCharsets.UTF_8);
            if (record.startsWith("path=")) {
                path = record.substring("path=".length());
            }
            pos += len;
        }
        return path;
    }

    /** Test support: a ustar archive of the given files (names up to 100 bytes), for checking the reader. */
    static byte[] write(Map<String, byte[]> files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            byte[] header = new byte[BLOCK];
            byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
            System.arraycopy(name, 0, header, 0, Math.min(100, name.length));
            put(header, 100, String.format("%07o", 0644));
            put(header, 108, "0000000");
            put(header, 116, "0000000");
            put(header, 124, String.format("%011o", f.getValue().length));
            put(header, 136, "00000000000");
            header[156] = '0';
            put(header, 257, "ustar");
            put(header, 263, "00");
            for (int i = 148; i < 156; i++) {
                header[i] = ' ';
            }
            int sum = 0;
            for (byte b : header) {
                sum += b & 0xff;
            }
            put(header, 148, String.format("%06o", sum));
            header[154] = 0;
            out.writeBytes(header);
            out.writeBytes(f.getValue());
            int pad = (BLOCK - f.getValue().length % BLOCK) % BLOCK;
            out.writeBytes(new byte[pad]);
        }
        out.writeBytes(new byte[2 * BLOCK]);
        return out.toByteArray();
    }

    private static void put(byte[] header, int offset, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, header, offset, b.length);
    }
}
