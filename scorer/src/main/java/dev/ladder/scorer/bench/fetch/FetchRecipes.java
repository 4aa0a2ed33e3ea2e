package dev.ladder.scorer.bench.fetch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The archives Ladder knows how to fetch, pinned in one resource ({@code /benchmarks/fetch.json}). A manifest file
 * in the same shape may replace a recipe's {@code size} and {@code sha256} (a mirror of another release, a test
 * serving its own archive).
 */
public final class FetchRecipes {

    static final String RESOURCE = "/benchmarks/fetch.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA256 = Pattern.compile("[0-9a-fA-F]{64}");

    private final Map<String, FetchRecipe> byName;

    private FetchRecipes(Map<String, FetchRecipe> byName) {
        this.byName = byName;
    }

    private static volatile FetchRecipes pinned;

    /** The pinned recipes (read once: every benchmark name is looked up here). */
    public static FetchRecipes pinned() {
        FetchRecipes p = pinned;
        if (p == null) pinned = p = readPinned();
        return p;
    }

    private static FetchRecipes readPinned() {
        try (InputStream in = FetchRecipes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
            JsonNode root = JSON.readTree(in);
            Map<String, FetchRecipe> recipes = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().startsWith("_")) continue;
                recipes.put(e.getKey(), recipe(e.getKey(), e.getValue()));
            }
            return new FetchRecipes(recipes);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE, e);
        }
    }

    private static FetchRecipe recipe(String name, JsonNode n) {
        List<String> aliases = new ArrayList<>();
        n.path("aliases").forEach(a -> aliases.add(a.asText()));
        JsonNode size = n.path("size");
        JsonNode sha = n.path("sha256");
        return new FetchRecipe(name, aliases, n.path("what").asText(), n.path("file").asText(), n.path("url").asText(),
                n.path("page").asText(), n.path("license").asText(), size.isNumber() ? size.asLong() : null,
                sha.isTextual() ? sha.asText() : null, FetchRecipe.Layout.parse(n.path("layout").asText()));
    }

    /**
     * These recipes with the sizes and hashes of {@code manifest} in place of the pinned ones: a JSON object
     * {@code {"<name>": {"size": N|null, "sha256": "<hex>"|null}, ...}}; a name it leaves out keeps its pins.
     */
    public FetchRecipes withManifest(Path manifest) {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(manifest));
        } catch (IOException e) {
            throw new UserError("cannot read the fetch manifest " + manifest + ": " + firstLine(e));
        }
        if (root == null || !root.isObject()) throw new UserError(manifest + ": a fetch manifest is a JSON object of names");
        Map<String, FetchRecipe> copy = new LinkedHashMap<>(byName);
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            FetchRecipe r = byName.get(e.getKey());
            String where = manifest + ": " + e.getKey();
            if (r == null) throw new UserError(where + ": unknown name; known: " + String.join(", ", byName.keySet()));
            JsonNode n = e.getValue();
            if (!n.isObject()) throw new UserError(where + ": expected an object with size and sha256");
            for (Iterator<String> f = n.fieldNames(); f.hasNext(); ) {
                String field = f.next();
                if (!field.equals("size") && !field.equals("sha256")) {
                    throw new UserError(where + ": unknown field '" + field + "' (a manifest sets size and sha256)");
                }
            }
            Long size = r.size();
            if (n.has("size")) {
                JsonNode s = n.get("size");
                if (!s.isNull() && !(s.canConvertToLong() && s.asLong() >= 0 && s.isIntegralNumber())) {
                    throw new UserError(where + ".size: expected a byte count or null, got " + s);
                }
                size = s.isNull() ? null : s.asLong();
            }
            String sha = r.sha256();
            if (n.has("sha256")) {
                JsonNode s = n.get("sha256");
                if (!s.isNull() && !(s.isTextual() && SHA256.matcher(s.asText()).matches())) {
                    throw new UserError(where + ".sha256: expected 64 hex digits or null, got " + s);
                }
                sha = s.isNull() ? null : s.asText().toLowerCase(Locale.ROOT);
            }
            copy.put(r.name(), r.withChecks(size, sha));
        }
        return new FetchRecipes(copy);
    }

    public Collection<FetchRecipe> all() {
        return byName.values();
    }

    /** The recipe named {@code name} or one of its aliases. */
    public Optional<FetchRecipe> find(String name) {
        String key = name.strip().toLowerCase(Locale.ROOT);
        for (FetchRecipe r : byName.values()) {
            if (r.name().equals(key) || r.aliases().contains(key)) return Optional.of(r);
        }
        return Optional.empty();
    }

    /** The recipe named {@code name}, or a one-line error listing the names. */
    public FetchRecipe get(String name) {
        return find(name).orElseThrow(() -> new UserError("unknown benchmark to fetch '" + name + "'; known: "
                + String.join(", ", names())));
    }

    /** Every name and alias, e.g. {@code spider (spider-dev)}. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        for (FetchRecipe r : byName.values()) {
            names.add(r.aliases().isEmpty() ? r.name() : String.join(", ", r.aliases()) + " (" + r.name() + ")");
        }
        return names;
    }

    static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.strip().lines().findFirst().orElse(m);
    }
}
