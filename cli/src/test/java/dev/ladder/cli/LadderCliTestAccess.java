package dev.ladder.cli;

/** {@link LadderCliTest}'s command runner for tests in other packages. */
public final class LadderCliTestAccess {

    public record Run(int code, String out, String err) {}

    private LadderCliTestAccess() {}

    public static Run run(String... args) {
        LadderCliTest.Run r = LadderCliTest.run(args);
        return new Run(r.code(), r.out(), r.err());
    }
}
