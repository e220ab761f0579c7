/** Runnable examples; a named module so that they can only use the exported API. */
module dev.workqueue.examples {
  requires dev.workqueue;

  exports dev.workqueue.examples;
}
