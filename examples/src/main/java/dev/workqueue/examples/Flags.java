package dev.workqueue.examples;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The command-line flags of an example: {@code --name value} pairs and bare switches such as
 * {@code --quiet}. A bad flag or value fails with an {@link IllegalArgumentException} naming
 * it, followed by the usage line.
 */
final class Flags {
  private final String usage;
  private final Map<String, String> values = new HashMap<>();

  private Flags(String usage) {
    this.usage = usage;
  }

  /**
   * Reads {@code args}.
   *
   * @param usage the usage line, appended to every error
   * @param valued flags that take a value
   * @param switches flags that take none
   */
  static Flags parse(String usage, Set<String> valued, Set<String> switches, String... args) {
    Flags flags = new Flags(usage);
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (switches.contains(flag)) {
        flags.values.put(flag, "true");
      } else if (valued.contains(flag)) {
        if (i + 1 >= args.length) {
          throw flags.error(flag + " needs a value");
        }
        flags.values.put(flag, args[++i]);
      } else {
        throw flags.error(flag.equals("--help") ? "" : "unknown flag " + flag);
      }
    }
    return flags;
  }

  boolean has(String flag) {
    return values.containsKey(flag);
  }

  /** The value of {@code flag}; {@code otherwise} if not given. */
  String string(String flag, String otherwise) {
    return values.getOrDefault(flag, otherwise);
  }

  /** The value of {@code flag}, at least {@code min}; {@code otherwise} if not given. */
  int intAtLeast(String flag, int min, int otherwise) {
    String v = values.get(flag);
    if (v == null) {
      return otherwise;
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw error(flag + " must be a whole number, was " + v);
    }
    if (n < min) {
      throw error(flag + " must be at least " + min + ", was " + n);
    }
    return n;
  }

  /** The value of {@code flag}, within [min, max]; {@code otherwise} if not given. */
  double doubleWithin(String flag, double min, double max, double otherwise) {
    String v = values.get(flag);
    if (v == null) {
      return otherwise;
    }
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw error(flag + " must be a number, was " + v);
    }
    if (!(d >= min && d <= max)) {
      throw error(flag + " must be within [" + min + ", " + max + "], was " + v);
    }
    return d;
  }

  /** The value of {@code flag}; {@code otherwise} if not given. */
  long longValue(String flag, long otherwise) {
    String v = values.get(flag);
    if (v == null) {
      return otherwise;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw error(flag + " must be a whole number, was " + v);
    }
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException(message.isEmpty() ? usage : message + "\n" + usage);
  }

  /** Runs {@code main} of an example: a bad command line prints the message and exits 2. */
  static <O> O orExit(java.util.function.Supplier<O> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      throw e; // not reached
    }
  }
}
