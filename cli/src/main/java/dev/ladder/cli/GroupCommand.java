package dev.ladder.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups others ({@code ladder db}, {@code ladder model}, ...): called bare, it lists its
 * subcommands, as {@code --help}, {@code -h} and {@code help} do (those three {@link Ladder#run} adds to every group).
 */
abstract class GroupCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        CommandLine cli = spec.commandLine();
        cli.usage(cli.getOut());
    }
}
