package dev.ladder.sql.mutate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

/**
 * One way to make an edit: the text edits and their description. Mutators list candidates by site (a column
 * reference, a conjunct, a join, ...), each site with its options (which column instead, which LIMIT, ...).
 */
record Candidate(List<Edit> edits, String where) {

    Candidate {
        edits = List.copyOf(edits);
    }

    static Candidate of(Edit edit, String where) {
        return new Candidate(List.of(edit), where);
    }

    /**
     * A random site, then a random option of it; when that does not {@code realise} (the edited text does not read
     * as it must), the next options and sites in order. Empty when none does. Deterministic given the Random's
     * state: it draws two numbers, and only when there is a site.
     */
    static <T> Optional<T> pick(List<List<Candidate>> sites, Random random, Function<Candidate, Optional<T>> realise) {
        List<List<Candidate>> live = new ArrayList<>();
        for (List<Candidate> s : sites) if (!s.isEmpty()) live.add(s);
        if (live.isEmpty()) return Optional.empty();
        int site = random.nextInt(live.size());
        int option = random.nextInt(live.get(site).size());
        for (int i = 0; i < live.size(); i++) {
            List<Candidate> options = live.get((site + i) % live.size());
            int first = i == 0 ? option : 0;
            for (int j = 0; j < options.size(); j++) {
                Optional<T> made = realise.apply(options.get((first + j) % options.size()));
                if (made.isPresent()) return made;
            }
        }
        return Optional.empty();
    }

    /** Whether some candidate realises. */
    static boolean any(List<List<Candidate>> sites, Function<Candidate, Optional<?>> realise) {
        for (List<Candidate> s : sites) {
            for (Candidate c : s) if (realise.apply(c).isPresent()) return true;
        }
        return false;
    }
}
