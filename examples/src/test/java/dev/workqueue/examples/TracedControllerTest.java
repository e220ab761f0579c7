package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The example's trace: two events, a failed reconcile linked to both, its retry as its child. */
class TracedControllerTest {
  @Test
  void printsOneTrace_fromTheWritersSpan_throughTheRetry() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<SpanData> spans =
        TracedController.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    List<SpanData> reconciles = spans.stream().filter(s -> s.getName().equals("reconcile"))
        .collect(Collectors.toList());
    List<SpanData> events = spans.stream().filter(s -> s.getName().equals("ConfigMap update"))
        .collect(Collectors.toList());
    assertEquals(2, reconciles.size(), out);
    assertEquals(2, events.size(), out);
    SpanData failed = reconciles.get(0);
    SpanData retry = reconciles.get(1);
    assertEquals(events.stream().map(SpanData::getSpanContext).collect(Collectors.toList()),
        failed.getLinks().stream().map(LinkData::getSpanContext).collect(Collectors.toList()));
    assertEquals(failed.getSpanId(), retry.getParentSpanId());
    assertTrue(out.startsWith("trace 4bf92f3577b34da6a3ce929d0e0e4736 (joined from"), out);
    assertTrue(out.contains("workqueue.reconcile.outcome=error"), out);
    assertTrue(out.contains("workqueue.reconcile.outcome=success"), out);
  }
}
