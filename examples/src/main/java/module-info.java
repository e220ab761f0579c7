/** Runnable examples; a named module so that they can only use the exported API. */
module dev.workqueue.examples {
  requires transitive dev.workqueue; // the pool example's API names Clock
  requires com.github.benmanes.caffeine;
  requires org.slf4j;

  exports dev.workqueue.examples;
  exports dev.workqueue.examples.pool;
}
