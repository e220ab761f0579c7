/**
 * The tracing SPI: what a queue and a controller call so that a tracer (the
 * {@code workqueue-tracing-opentelemetry} module, or your own) can follow each add of an item to
 * the reconcile that covers it. The core carries an opaque context per add and knows nothing of
 * any tracing library; a queue or controller without a tracer calls none of this.
 */
package dev.workqueue.trace;
