package dev.ladder.eval.run;

import dev.ladder.scorer.bench.BenchmarkItem;
import dev.ladder.eval.experiment.Cell;
import dev.ladder.inference.EngineEvents;
import dev.ladder.inference.EngineFailureException;
import dev.ladder.inference.EngineRequestException;
import dev.ladder.inference.EngineUnavailableException;
import dev.ladder.pipeline.strategy.Answer;
import dev.ladder.pipeline.strategy.Question;
import dev.ladder.pipeline.strategy.Strategy;
import dev.ladder.pipeline.strategy.StrategyContext;
import dev.ladder.pipeline.strategy.Trace;
import dev.ladder.sql.db.InfrastructureError;
import dev.ladder.sql.db.UserError;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The cell loop: answers a cell's items with its strategy (one at a time; several together in rounds, their calls
 * merged, for a model with a batch width above 1; or in parallel for a served model), scores each answer into its row
 * and stores it; or copies the rows of the same rung's first-seed cell when its answers do not depend on the seed.
 * Which items, models and cells: the runner's ({@link ExperimentRunner}).
 */
final class CellRunner {

    private final PrintStream progress;
    private final PrintWriter log;

    /** @param progress where progress bars go, or null for one log line per cell */
    CellRunner(PrintStream progress, PrintWriter log) {
        this.progress = progress;
        this.log = log;
    }

    /**
     * How a cell's items share the model: {@code served} requests in flight at once (a served model's
     * {@code max_concurrent}; 1 otherwise), or {@code width} items together in {@code rounds} (1: one at a time).
     */
    record Together(int served, int width, ItemRounds rounds) {}

    /**
     * Answers, scores and stores the items of {@code todo} (indexes into {@code items}; the cell's positions without
     * a row, of {@code all} its positions here), as {@code together} says, with a progress bar or one log line under
     * {@code label} (the cell, and its database in a run of several); returns how many were answered.
     */
    int run(Cell cell, String label, Strategy strategy, StrategyContext context, List<BenchmarkItem> items,
            List<Integer> all, List<Integer> todo, Together together, RowScorer scoring, ResultsStore store,
            CallCounter calls) {
        int total = all.size();
        int done = total - todo.size();
        ProgressBar bar = progress == null ? null : new ProgressBarBuilder()
                .setTaskName(label)
                .setInitialMax(total)
                .startsFrom(done, Duration.ZERO)
                .setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new ConsoleProgressBarConsumer(progress))
                .showSpeed()
                .setUnit(" items", 1)
                .setUpdateIntervalMillis(500)
                .build();
        long t0 = System.nanoTime();
        try {
            if (together.served() > 1) {
                answerInParallel(together.served(), cell, items, todo, strategy, context, scoring, store, calls, bar);
            } else if (together.width() > 1) {
                answerInRounds(together, cell, items, all, todo, strategy, context, scoring, store, calls, bar);
            } else {
                for (int index : todo) {
                    answerAndStore(cell, items.get(index), index, strategy, context, scoring, store, calls, bar);
                }
            }
        } finally {
            if (bar != null) bar.close();
        }
        if (bar == null) {
            log.printf(Locale.ROOT, "%s: %d items in %.1f s%s%n", label, todo.size(),
                    (System.nanoTime() - t0) / 1e9, done > 0 ? " (" + done + " already done)" : "");
        }
        return todo.size();
    }

    /**
     * Answers one item, scores it and stores its row (with the engine's events, if any, in its trace). Scoring and
     * storing hold the store's lock: items answered in parallel or together reach the results store one at a time.
     */
    private static void answerAndStore(Cell cell, BenchmarkItem item, int index, Strategy strategy, StrategyContext context,
                                       RowScorer scoring, ResultsStore store, CallCounter calls, ProgressBar bar) {
        EngineEvents.drain(); // left over from connecting, or from another item on this thread
        CallCounter.Snapshot before = calls.snapshot();
        int reusedBefore = context.caches().repliesReusedOnThisThread();
        Answer answer = answer(cell, item, strategy, context);
        // a reply the run kept for another rung (GSR's clauses) is a call answered from a cache, not a free one
        int reused = context.caches().repliesReusedOnThisThread() - reusedBefore;
        CallCounter.Snapshot spent = calls.snapshot().minus(before).plusCached(reused);
        Trace trace = answer.trace().withEngineEvents(EngineEvents.drain());
        Answer recorded = new Answer(answer.sql(), trace);
        synchronized (store) {
            store.put(scoring.row(cell, item, recorded, spent), index, trace.toJson());
            if (bar != null) bar.step();
        }
    }

    /**
     * Answers items {@code width} at a time in rounds ({@link ItemRounds}). Rows are keyed by item and read back in
     * item order, so the order items finish in changes no output. A resumed cell whose model has a generation cache
     * replays its stored items too, in their places, without storing them again: their calls all come from the cache,
     * so every round holds the same requests as in a run never stopped, and the items left are decoded beside the same
     * neighbours (an engine whose numbers depend on a batch's other rows then gives them the same answers).
     */
    private static void answerInRounds(Together together, Cell cell, List<BenchmarkItem> items, List<Integer> all,
                                       List<Integer> todo, Strategy strategy, StrategyContext context,
                                       RowScorer scoring, ResultsStore store, CallCounter calls, ProgressBar bar) {
        Set<Integer> left = new HashSet<>(todo);
        boolean replay = together.rounds().cache() != null && todo.size() < all.size();
        together.rounds().run(together.width(), replay ? all : todo, cell.name(), index -> {
            if (left.contains(index)) {
                answerAndStore(cell, items.get(index), index, strategy, context, scoring, store, calls, bar);
            } else {
                answer(cell, items.get(index), strategy, context);
            }
        });
    }

    /**
     * Copies the rows of {@code from} (the same rung under the first seed, already run) into {@code cell}; items
     * {@code from} lacks are left for a later start.
     */
    int reuse(Cell cell, Cell from, List<BenchmarkItem> items, List<Integer> todo, ResultsStore store) {
        List<ItemResult> rows = store.results(from.name());
        List<String> traces = store.traces(from.name());
        Map<String, Integer> at = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) at.put(rows.get(i).itemId(), i);
        int copied = 0;
        for (int index : todo) {
            Integer row = at.get(items.get(index).id());
            if (row == null) continue;
            ItemResult r = rows.get(row);
            store.put(r.reusedIn(cell.name()), index, traces.get(row));
            copied++;
        }
        log.printf(Locale.ROOT, "%s: %d items reused from %s (its answers do not depend on the seed)%n",
                cell.name(), copied, from.name());
        return copied;
    }

    /**
     * Answers items on {@code parallel} threads. The first failure (a server gone for good) stops the cell: items not
     * started are not started, items in progress finish and are stored, and the failure is thrown, so that the run
     * resumes from exactly the items without rows.
     */
    private static void answerInParallel(int parallel, Cell cell, List<BenchmarkItem> items, List<Integer> todo,
                                         Strategy strategy, StrategyContext context, RowScorer scoring, ResultsStore store,
                                         CallCounter calls, ProgressBar bar) {
        AtomicInteger threads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(parallel, r -> {
            Thread t = new Thread(r, cell.name() + "-item-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        try {
            for (int index : todo) {
                pool.execute(() -> {
                    if (failure.get() != null) return;
                    try {
                        answerAndStore(cell, items.get(index), index, strategy, context, scoring, store, calls, bar);
                    } catch (RuntimeException e) {
                        failure.compareAndSet(null, e);
                    } catch (Error e) {
                        failure.compareAndSet(null, new IllegalStateException(e.toString(), e));
                    }
                });
            }
        } finally {
            pool.shutdown();
            try {
                while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                    // items still in progress: their rows are worth keeping
                }
            } catch (InterruptedException e) {
                pool.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (failure.get() != null) throw failure.get();
    }

    /**
     * One item's answer. A failure of the item itself (a component that throws on what the model wrote) is contained:
     * the item gets no SQL and the trace says why, and the run goes on. A failure of what the item runs on is not a
     * result: an {@link InfrastructureError} (the database) or an engine failure (e.g. CUDA out of memory) stops the
     * run with no row for the item, so that a rerun resumes there.
     */
    static Answer answer(Cell cell, BenchmarkItem item, Strategy strategy, StrategyContext context) {
        try {
            return strategy.answer(new Question(item.id(), item.question(), item.evidence()), context);
        } catch (InfrastructureError | UserError e) {
            throw e;
        } catch (EngineUnavailableException e) {
            throw new InfrastructureError(e.getMessage() + "; nothing was stored for " + cell.name() + " item " + item.id()
                    + ", and running the experiment again resumes there", e);
        } catch (EngineRequestException e) {
            throw new UserError(e.getMessage(), e);
        } catch (EngineFailureException e) {
            throw new InfrastructureError("the inference engine failed on " + cell.name() + " item " + item.id() + ": "
                    + e.getMessage() + "; nothing was stored for it, and running the experiment again resumes there", e);
        } catch (RuntimeException e) {
            String why = "failed: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            Trace trace = new Trace.Builder(item.id(), cell.strategy()).build("", "none", why);
            return new Answer("", trace);
        }
    }

}
