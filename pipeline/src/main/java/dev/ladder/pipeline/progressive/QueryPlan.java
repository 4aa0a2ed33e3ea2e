package dev.ladder.pipeline.progressive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stage 2: the query plan, an order over the sub-tasks that respects their dependencies (a topological order; among
 * sub-tasks whose dependencies are met, the more confident first, then the model's order). It is used: progressive
 * execution may only take a sub-task whose dependencies are done ({@link #ready}). Dependencies that close a cycle
 * are broken at the least confident sub-task's edge, with a note.
 *
 * @param order the plan
 * @param notes broken cycles, in words
 */
record QueryPlan(List<String> order, Map<String, List<String>> dependencies, List<String> notes) {

    static QueryPlan of(List<SubTask> tasks) {
        Map<String, SubTask> byId = new LinkedHashMap<>();
        tasks.forEach(t -> byId.put(t.id(), t));
        Map<String, List<String>> deps = new LinkedHashMap<>();
        tasks.forEach(t -> deps.put(t.id(), new ArrayList<>(t.dependsOn())));
        List<String> notes = new ArrayList<>();
        List<String> order = new ArrayList<>();
        Set<String> done = new LinkedHashSet<>();
        Comparator<SubTask> byConfidence = Comparator.comparingDouble(SubTask::initialConfidence).reversed();
        while (order.size() < tasks.size()) {
            SubTask next = tasks.stream().filter(t -> !done.contains(t.id()) && done.containsAll(deps.get(t.id())))
                    .sorted(byConfidence).findFirst().orElse(null);
            if (next == null) {
                // a cycle: drop the remaining dependencies of the least confident open sub-task
                SubTask weakest = tasks.stream().filter(t -> !done.contains(t.id()))
                        .min(Comparator.comparingDouble(SubTask::initialConfidence)).orElseThrow();
                notes.add("a dependency cycle: " + weakest.id() + " no longer waits for " + deps.get(weakest.id()));
                deps.get(weakest.id()).clear();
                continue;
            }
            done.add(next.id());
            order.add(next.id());
        }
        return new QueryPlan(List.copyOf(order), deps, List.copyOf(notes));
    }

    /** Whether {@code id}'s dependencies are all in {@code done}. */
    boolean ready(String id, Set<String> done) {
        return done.containsAll(dependencies.getOrDefault(id, List.of()));
    }

    int position(String id) {
        return order.indexOf(id);
    }
}
