package dev.ladder.inference.store;

/**
 * One file of a hub repo, as the hub API lists it.
 *
 * @param name   path in the repo ({@code rfilename})
 * @param size   bytes, or -1 when the listing did not say
 * @param sha256 lower-case hex SHA-256 of the content for LFS files when the listing said, else null
 * @param blobId the git blob id (SHA-1 of {@code "blob <size>\0" + content}) for files kept in git (not LFS), else
 *               null; checked like a SHA-256 when present
 */
public record HubFile(String name, long size, String sha256, String blobId) {

    /** A file with nothing known but its name. */
    public static HubFile named(String name) {
        return new HubFile(name, -1, null, null);
    }
}
