/** JMH benchmarks of the toolkit beside JDK baselines and the Java peer. */
package dev.workqueue.benchmarks;
