package dev.workqueue.tracing.opentelemetry;

import dev.workqueue.trace.CarriedAdd;
import dev.workqueue.trace.HandOut;
import dev.workqueue.trace.ReconcileTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Traces a controller with OpenTelemetry: a span per reconcile whose links point to the span
 * contexts that were current at each add the reconcile covers, and (through {@link
 * #startEvent}) a span per informer event that queues keys.
 *
 * <pre>{@code
 * OpenTelemetryTracing tracing = OpenTelemetryTracing.create(openTelemetry);
 * Controller<String> c = Controller.<String>builder("configmaps")
 *     .tracer(tracing)                      // a span per reconcile, linked to its adds
 *     .reconciler(key -> Result.success())
 *     .build();
 * }</pre>
 *
 * <p><b>The reconcile span</b> ({@value #RECONCILE_SPAN}, kind {@code CONSUMER}) is current while
 * the reconciler and its outcome run, so spans the reconciler starts are its children and a retry
 * the outcome queues links back to it. Its parent is the context of the first add it covers (the
 * trace goes on from the event that queued the key), unless {@link #rootReconciles()}: then each
 * reconcile starts a trace of its own. Its links: the first {@link
 * ReconcileTracer#maxCarried()} (8) adds' contexts, in the order the adds took effect, each with
 * the add's delay and age; {@value #ADDS_UNLINKED} counts the rest. Attributes: {@value
 * #CONTROLLER}, {@value #KEY}, {@value #ATTEMPT}, {@value #OUTCOME}, {@value #ADDS}, {@value
 * #READY_WAIT_MS} (the wait in line, after any back-off) and, when the outcome requeues the key
 * with a delay, {@value #REQUEUE_DELAY_MS} (the back-off or rate limit its limiter gave, or the
 * requeue-after). The queue's waits are on the queue's clock; spans' times on the SDK's.
 *
 * <p>Thread-safe. Adds made outside any span carry nothing.
 */
public final class OpenTelemetryTracing implements ReconcileTracer<Object> {
  /** The instrumentation scope of the spans. */
  public static final String INSTRUMENTATION = "dev.workqueue";
  /** The reconcile span's name. */
  public static final String RECONCILE_SPAN = "reconcile";
  /** Attribute: the controller's name. */
  public static final String CONTROLLER = "workqueue.controller";
  /** Attribute: the key, as {@code String.valueOf(key)}. */
  public static final String KEY = "workqueue.key";
  /** Attribute: 1 for a first try, n + 1 after n rate-limited requeues. */
  public static final String ATTEMPT = "workqueue.reconcile.attempt";
  /** Attribute: the outcome ({@link ReconcileTracer#SUCCESS} and the other constants there). */
  public static final String OUTCOME = "workqueue.reconcile.outcome";
  /** Attribute: how many adds with a context the reconcile covers. */
  public static final String ADDS = "workqueue.adds";
  /** Attribute: how many of those have no link (past the first eight). */
  public static final String ADDS_UNLINKED = "workqueue.adds.unlinked";
  /** Attribute: milliseconds from the round becoming ready to its hand-out. */
  public static final String READY_WAIT_MS = "workqueue.wait.ready_ms";
  /** Attribute: the delay, in milliseconds, of the requeue this reconcile's outcome made. */
  public static final String REQUEUE_DELAY_MS = "workqueue.requeue.delay_ms";
  /** Link attribute: the add's delay in milliseconds (0: an add without delay). */
  public static final String ADD_DELAY_MS = "workqueue.add.delay_ms";
  /** Link attribute: milliseconds from the add to the hand-out, the delay included. */
  public static final String ADD_AGE_MS = "workqueue.add.age_ms";

  private static final AttributeKey<String> CONTROLLER_KEY = AttributeKey.stringKey(CONTROLLER);
  private static final AttributeKey<String> KEY_KEY = AttributeKey.stringKey(KEY);
  private static final AttributeKey<Long> ATTEMPT_KEY = AttributeKey.longKey(ATTEMPT);
  private static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
  private static final AttributeKey<Long> ADDS_KEY = AttributeKey.longKey(ADDS);
  private static final AttributeKey<Long> UNLINKED_KEY = AttributeKey.longKey(ADDS_UNLINKED);
  private static final AttributeKey<Long> READY_KEY = AttributeKey.longKey(READY_WAIT_MS);
  private static final AttributeKey<Long> REQUEUE_KEY = AttributeKey.longKey(REQUEUE_DELAY_MS);
  private static final AttributeKey<Long> ADD_DELAY_KEY = AttributeKey.longKey(ADD_DELAY_MS);
  private static final AttributeKey<Long> ADD_AGE_KEY = AttributeKey.longKey(ADD_AGE_MS);

  private final Tracer tracer;
  private final boolean roots;
  /** The reconcile in progress on each worker thread: a requeue of its key notes its delay. */
  private final ThreadLocal<Active> active = new ThreadLocal<>();

  private OpenTelemetryTracing(Tracer tracer, boolean roots) {
    this.tracer = tracer;
    this.roots = roots;
  }

  /**
   * Spans on {@code openTelemetry}'s tracer named {@value #INSTRUMENTATION}.
   *
   * @param openTelemetry the application's OpenTelemetry (its SDK, or the global one)
   * @return a tracing whose reconciles continue the trace of their first add
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static OpenTelemetryTracing create(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry must not be null");
    return new OpenTelemetryTracing(openTelemetry.getTracer(INSTRUMENTATION), false);
  }

  /**
   * The same tracing, but each reconcile span starts a trace of its own and only links to its
   * adds (OpenTelemetry's advice for a consumer of a batch): for a key whose events come from
   * many traces.
   *
   * @return a tracing with root reconcile spans
   */
  public OpenTelemetryTracing rootReconciles() {
    return new OpenTelemetryTracing(tracer, true);
  }

  @Override
  public Object onAdd(Object key, Duration delay) {
    if (!delay.isZero()) {
      Active a = active.get();
      if (a != null && a.key.equals(key)) {
        a.span.setAttribute(REQUEUE_KEY, delay.toMillis()); // this reconcile's requeue
      }
    }
    SpanContext current = Span.current().getSpanContext();
    return current.isValid() ? current : null;
  }

  @Override
  public Reconcile onReconcile(String controller, Object key, int attempt, HandOut handOut) {
    SpanBuilder b = tracer.spanBuilder(RECONCILE_SPAN).setSpanKind(SpanKind.CONSUMER)
        .setAttribute(CONTROLLER_KEY, controller)
        .setAttribute(KEY_KEY, String.valueOf(key))
        .setAttribute(ATTEMPT_KEY, (long) attempt)
        .setAttribute(ADDS_KEY, (long) handOut.adds())
        .setAttribute(UNLINKED_KEY, (long) handOut.dropped())
        .setAttribute(READY_KEY, handOut.readyWait().toMillis());
    SpanContext first = null;
    for (CarriedAdd add : handOut.carried()) {
      if (add.context() instanceof SpanContext sc) {
        first = first == null ? sc : first;
        b.addLink(sc, Attributes.of(ADD_DELAY_KEY, add.delay().toMillis(),
            ADD_AGE_KEY, add.age().toMillis()));
      }
    }
    if (roots || first == null) {
      b.setNoParent();
    } else {
      b.setParent(Context.root().with(Span.wrap(first)));
    }
    Span span = b.startSpan();
    Active a = new Active(key, span, span.makeCurrent(), active.get());
    active.set(a);
    return a;
  }

  /**
   * Starts a span for an event from outside the queue (an informer's notification), current on
   * this thread until the returned handle is closed; adds made meanwhile carry it. Its parent is
   * the trace context in {@code traceparent} (a W3C {@code traceparent} value, as another traced
   * system writes it on an object), or else the current context. Matches {@code
   * dev.workqueue.kubernetes.EventTracer}: {@code .eventTracer(tracing::startEvent)}.
   *
   * @param name the span's name
   * @param attributes the span's string attributes
   * @param traceparent a W3C {@code traceparent}, or null; an invalid one is ignored
   * @return the open span: close it on the same thread
   * @throws NullPointerException if {@code name} or {@code attributes} is null
   */
  public EventSpan startEvent(String name, Map<String, String> attributes, String traceparent) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(attributes, "attributes must not be null");
    SpanBuilder b = tracer.spanBuilder(name).setSpanKind(SpanKind.CONSUMER);
    attributes.forEach(b::setAttribute);
    SpanContext remote = Traceparent.parse(traceparent);
    if (remote != null) {
      b.setParent(Context.current().with(Span.wrap(remote)));
    }
    Span span = b.startSpan();
    return new EventSpan(span, span.makeCurrent());
  }

  /** The span of an event, current until closed. */
  public static final class EventSpan implements AutoCloseable {
    private final Span span;
    private final Scope scope;

    EventSpan(Span span, Scope scope) {
      this.span = span;
      this.scope = scope;
    }

    /**
     * The span.
     *
     * @return the event's span
     */
    public Span span() {
      return span;
    }

    /** Ends the span and restores the context that was current before it. */
    @Override
    public void close() {
      scope.close();
      span.end();
    }
  }

  /** A reconcile in progress on a worker's thread. */
  private final class Active implements Reconcile {
    final Object key;
    final Span span;
    final Scope scope;
    final Active outer;

    Active(Object key, Span span, Scope scope, Active outer) {
      this.key = key;
      this.span = span;
      this.scope = scope;
      this.outer = outer;
    }

    @Override
    public void end(String outcome, Throwable failure) {
      span.setAttribute(OUTCOME_KEY, outcome);
      if (failure != null) {
        span.recordException(failure);
      }
      if (failure != null || DROPPED.equals(outcome)) {
        span.setStatus(StatusCode.ERROR, outcome);
      }
      scope.close();
      span.end();
      if (outer == null) {
        active.remove();
      } else {
        active.set(outer);
      }
    }
  }
}
