package dev.workqueue.controller;

import dev.workqueue.PollResult;
import dev.workqueue.RateLimitingQueue;
import java.time.Duration;
import java.util.Optional;

/** A queue that forwards every call to a real one; tests override the calls they disturb. */
class ForwardingRateLimitingQueue<T> implements RateLimitingQueue<T> {
  final RateLimitingQueue<T> real;

  ForwardingRateLimitingQueue(RateLimitingQueue<T> real) {
    this.real = real;
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    return real.get();
  }

  @Override
  public void add(T item) {
    real.add(item);
  }

  @Override
  public Optional<T> poll(Duration timeout) throws InterruptedException {
    return real.poll(timeout);
  }

  @Override
  public PollResult<T> pollResult(Duration timeout) throws InterruptedException {
    return real.pollResult(timeout);
  }

  @Override
  public void done(T item) {
    real.done(item);
  }

  @Override
  public int size() {
    return real.size();
  }

  @Override
  public void shutDown() {
    real.shutDown();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    real.shutDownWithDrain();
  }

  @Override
  public boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
    return real.shutDownWithDrain(timeout);
  }

  @Override
  public boolean isShuttingDown() {
    return real.isShuttingDown();
  }

  @Override
  public void addAfter(T item, Duration delay) {
    real.addAfter(item, delay);
  }

  @Override
  public void reschedule(T item, Duration delay) {
    real.reschedule(item, delay);
  }

  @Override
  public boolean cancel(T item) {
    return real.cancel(item);
  }

  @Override
  public int waitingCount() {
    return real.waitingCount();
  }

  @Override
  public void addRateLimited(T item) {
    real.addRateLimited(item);
  }

  @Override
  public void forget(T item) {
    real.forget(item);
  }

  @Override
  public int numRequeues(T item) {
    return real.numRequeues(item);
  }
}
