package dev.workqueue.examples;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command-line flags of an example: {@code --name value} pairs and bare switches such as
 * {@code --quiet}. A bad flag or value fails with an {@link IllegalArgumentException} naming
 * it, followed by the usage line; {@code --help} ends parsing with a {@link Help} that carries
 * the usage line and a description of every flag.
 */
final class Flags {
  private final String usage;
  private final Map<String, String> values = new HashMap<>();

  private Flags(String usage) {
    this.usage = usage;
  }

  /** {@code --help} was given: the message is the usage line and the flags' descriptions. */
  static final class Help extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param usage the usage line
     * @param flags one line per flag: the flag, its value and what it does, with its default
     */
    Help(String usage, String flags) {
      super(usage + "\n" + flags + "\n" + alignedAs(flags, "  --help") + "print this and exit",
          null, false, false);
    }

    /** {@code flag} padded to where the first line of {@code flags} starts its description. */
    private static String alignedAs(String flags, String flag) {
      Matcher m = DESCRIPTION.matcher(flags);
      int column = m.lookingAt() ? m.end() : 0;
      return flag + " ".repeat(Math.max(2, column - flag.length()));
    }

    private static final Pattern DESCRIPTION = Pattern.compile("  --\\S+(?: \\S+)? +");
  }

  /**
   * Reads {@code args}.
   *
   * @param usage the usage line, appended to every error
   * @param help one line per flag, what {@code --help} prints below the usage line
   * @param valued flags that take a value
   * @param switches flags that take none
   * @throws Help if {@code --help} is among {@code args}
   * @throws IllegalArgumentException for an unknown flag or a flag without its value
   */
  static Flags parse(String usage, String help, Set<String> valued, Set<String> switches,
      String... args) {
    Flags flags = new Flags(usage);
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help")) {
        throw new Help(usage, help);
      } else if (switches.contains(flag)) {
        flags.values.put(flag, "true");
      } else if (valued.contains(flag)) {
        if (i + 1 >= args.length) {
          throw flags.error(flag + " needs a value");
        }
        flags.values.put(flag, args[++i]);
      } else {
        throw flags.error("unknown flag " + flag);
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
    return new IllegalArgumentException(message + "\n" + usage);
  }

  /**
   * Parses the command line of an example's {@code main}: {@code --help} prints the flags'
   * descriptions and exits 0; a bad command line prints the message and the usage line to
   * standard error and exits 2.
   */
  static <O> O orExit(Supplier<O> parse) {
    return orExit(parse, System.out, System.err, System::exit);
  }

  /**
   * {@link #orExit(Supplier)} with its streams and exit: returns null after {@code exit} if
   * {@code exit} returns.
   */
  static <O> O orExit(Supplier<O> parse, PrintStream out, PrintStream err, IntConsumer exit) {
    try {
      return parse.get();
    } catch (Help help) {
      out.println(help.getMessage());
      exit.accept(0);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      exit.accept(2);
    }
    return null;
  }
}
