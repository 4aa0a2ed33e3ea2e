package dev.ladder.pipeline.search;

import java.util.List;
import java.util.Map;

/**
 * What a person needs to finish a question the search could not validate: every candidate judged (SQL, validity,
 * score, violations, warnings), each one's evidence package, the join paths suggested for tables left unjoined, and
 * what was dropped before judging.
 *
 * @param reason why the package exists (no candidate validates, or none was usable)
 */
public record ReviewPackage(String question, String reason, List<Map<String, Object>> candidates,
                            List<Evidence> evidence, List<Evidence.JoinSuggestion> joinSuggestions,
                            List<String> dropped) {}
