package dev.ladder.cli;

import dev.ladder.eval.view.RunViewer;
import dev.ladder.eval.view.ViewServer;
import dev.ladder.sql.db.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ladder view}: browse runs item by item in a local web page, or write the pages as a static folder. */
@Command(name = "view", mixinStandardHelpOptions = true,
        description = {"Browse one or more run directories item by item (docs/view.md): the ladder table, every question's "
                + "outcome per rung with filters (fixed / broken by a rung), each item's SQL, results and trace.",
                "Serves on 127.0.0.1 only and prints the URL (Ctrl-C stops it); --export writes the same pages to a folder."})
public final class ViewCommand implements Callable<Integer> {

    @Spec CommandSpec spec;
    @Parameters(arity = "1..*", paramLabel = "RUN_DIR") List<Path> runs;
    @Option(names = "--port", defaultValue = "8080", paramLabel = "N", description = "Port on 127.0.0.1 (default ${DEFAULT-VALUE}; 0: any free port).")
    int port;
    @Option(names = "--export", paramLabel = "DIR", description = "Write the pages to DIR (open DIR/index.html) instead of serving them.")
    Path export;

    @Override
    public Integer call() throws Exception {
        long t0 = System.nanoTime();
        RunViewer viewer = RunViewer.of(runs);
        PrintWriter out = spec.commandLine().getOut();
        long bytes = viewer.pages().values().stream().mapToLong(b -> b.length).sum();
        String made = String.format(Locale.ROOT, "%d pages (%.1f MB) in %.1f s", viewer.pages().size(), bytes / 1e6,
                (System.nanoTime() - t0) / 1e9);
        if (export != null) {
            viewer.export(export);
            out.println("wrote " + made + " to " + export.resolve("index.html"));
            out.flush();
            return 0;
        }
        ViewServer server;
        try {
            server = ViewServer.start(viewer.pages(), port);
        } catch (IOException e) {
            throw new UserError("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage() + " (choose another --port)", e);
        }
        out.println("serving " + made + " at " + server.url() + " (Ctrl-C stops it)");
        out.flush();
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        forever.await();
        return 0;
    }
}
