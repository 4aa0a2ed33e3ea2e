package dev.ladder.inference.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of a file's content, and its git blob id when the hub's listing gave one to check. */
final class FileDigests {
    private final MessageDigest sha256;
    private final MessageDigest gitBlob;

    private FileDigests(MessageDigest sha256, MessageDigest gitBlob) {
        this.sha256 = sha256;
        this.gitBlob = gitBlob;
    }

    static FileDigests of(HubFile f) {
        try {
            MessageDigest git = null;
            if (f.blobId() != null) {
                git = MessageDigest.getInstance("SHA-1");
                git.update(("blob " + f.size() + "\0").getBytes(StandardCharsets.US_ASCII));
            }
            return new FileDigests(MessageDigest.getInstance("SHA-256"), git);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    void update(byte[] b, int off, int len) {
        sha256.update(b, off, len);
        if (gitBlob != null) gitBlob.update(b, off, len);
    }

    private String sha256Hex;
    private String gitBlobHex;

    String sha256() {
        if (sha256Hex == null) sha256Hex = HexFormat.of().formatHex(sha256.digest());
        return sha256Hex;
    }

    String gitBlob() {
        if (gitBlob != null && gitBlobHex == null) gitBlobHex = HexFormat.of().formatHex(gitBlob.digest());
        return gitBlobHex;
    }
}
