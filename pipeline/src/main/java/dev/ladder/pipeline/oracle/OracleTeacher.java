package dev.ladder.pipeline.oracle;

import java.util.Set;

/**
 * How the oracle answers the calls of one pipeline: the kinds it knows ({@code Work.Call#kind}) and, for each call,
 * the answer a perfect model would write, from the gold. A pipeline teaches the oracle its calls by implementing this
 * in its own package and returning it from its plugin's {@code Pipeline#oracleTeachers()}; the oracle's core never
 * names a pipeline. Semantic noise enters through {@link OracleCall#sql()}, format noise is
 * the core's, drawn for the reply's {@link ReplyShape}.
 */
public interface OracleTeacher {

    /** The call kinds this teacher answers; two teachers never share one. */
    Set<String> kinds();

    /** The clean answer to one call (before format noise). */
    Reply answer(OracleCall call);

    /** An answer and the form it is written in. */
    record Reply(String text, ReplyShape shape) {}
}
