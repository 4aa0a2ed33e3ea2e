package dev.ladder.pipeline.progressive;

import java.util.List;

/**
 * One piece of the query to build.
 *
 * @param initialConfidence the model's confidence when it proposed the sub-task, in [0, 1]
 * @param dependsOn         ids of the sub-tasks it needs first (unknown ids dropped, see {@link SubTasks})
 */
public record SubTask(String id, String description, String fragment, double initialConfidence, List<String> dependsOn) {
    public SubTask {
        dependsOn = List.copyOf(dependsOn);
    }
}
