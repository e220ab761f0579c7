package dev.workqueue.testsupport;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * The Lincheck run settings the toolkit's linearizability tests share. Scenarios are small
 * (2 threads of 3 actors for model checking, 3 for stress, 2 actors before and after) and the
 * run counts low, so {@code mvn verify} stays quick; {@link StressScale} multiplies the
 * iterations for a longer search when changing a queue or limiter. A test that needs another
 * shape overrides it on the options returned.
 */
public final class LincheckRuns {
  private LincheckRuns() {}

  /**
   * Model checking against {@code spec}. Logging is not state: calls into SLF4J (such as a
   * queue's once-only warning about an unpaired {@code done}) are left out of the interleavings,
   * for every test (the limiters log nothing in their checked paths, so it changes nothing
   * there).
   */
  public static ModelCheckingOptions modelChecking(Class<?> spec, int iterations,
      int invocationsPerIteration) {
    return new ModelCheckingOptions()
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)
        .iterations(iterations * StressScale.factor())
        .invocationsPerIteration(invocationsPerIteration)
        .sequentialSpecification(spec)
        .addGuarantee(forClasses("org.slf4j.Logger", "org.slf4j.simple.SimpleLogger",
            "ch.qos.logback.classic.Logger")
            .allMethods().ignore());
  }

  /** Stress runs against {@code spec} on 3 threads. */
  public static StressOptions stress(Class<?> spec, int iterations, int invocationsPerIteration) {
    return new StressOptions()
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)
        .iterations(iterations * StressScale.factor())
        .invocationsPerIteration(invocationsPerIteration)
        .sequentialSpecification(spec);
  }
}
