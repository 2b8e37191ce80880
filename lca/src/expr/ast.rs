//! The expression tree: operators, built-in functions and [`Expr`].

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^` (power, right-associative)
    Pow,
}

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    /// Base-2 logarithm.
    Log2,
    /// Natural logarithm.
    Ln,
    /// Base-10 logarithm.
    Log10,
    /// Square root.
    Sqrt,
    /// e^x.
    Exp,
    /// Absolute value.
    Abs,
    /// Round up.
    Ceil,
    /// Round down.
    Floor,
    /// Minimum of 2 or more arguments.
    Min,
    /// Maximum of 2 or more arguments.
    Max,
    /// Piecewise power law through measured points: `pw(x, x1, y1, x2, y2, …)` (see
    /// [`piecewise`]).
    Pw,
    /// Linear interpolation through points whose values may be expressions:
    /// `lin(x, x1, y1, x2, y2, …)` (see [`linear`]).
    Lin,
}

impl Func {
    /// All functions, for lookup by name.
    pub const ALL: [Func; 12] = [
        Func::Log2,
        Func::Ln,
        Func::Log10,
        Func::Sqrt,
        Func::Exp,
        Func::Abs,
        Func::Ceil,
        Func::Floor,
        Func::Min,
        Func::Max,
        Func::Pw,
        Func::Lin,
    ];

    /// The name used in the grammar.
    pub fn name(self) -> &'static str {
        match self {
            Func::Log2 => "log2",
            Func::Ln => "ln",
            Func::Log10 => "log10",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Abs => "abs",
            Func::Ceil => "ceil",
            Func::Floor => "floor",
            Func::Min => "min",
            Func::Max => "max",
            Func::Pw => "pw",
            Func::Lin => "lin",
        }
    }

    /// The function with this name, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// True for `min` and `max`, which take two or more arguments, and `pw` and `lin`,
    /// which take their variable and a table of points (two or more for `pw`, one or more
    /// for `lin`).
    pub fn is_variadic(self) -> bool {
        matches!(self, Func::Min | Func::Max | Func::Pw | Func::Lin)
    }

    /// Applies the function to evaluated arguments (arity already checked by the parser).
    pub fn apply(self, args: &[f64]) -> f64 {
        match self {
            Func::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Func::Pw => match args.split_first() {
                Some((&x, table)) => piecewise(x, table),
                None => f64::NAN,
            },
            Func::Lin => match args.split_first() {
                Some((&x, table)) => linear(x, table),
                None => f64::NAN,
            },
            _ => self.apply1(args.first().copied().unwrap_or(f64::NAN)),
        }
    }

    /// Applies the function to one argument (`min` and `max` of one value give it back).
    pub fn apply1(self, x: f64) -> f64 {
        match self {
            Func::Log2 => x.log2(),
            Func::Ln => x.ln(),
            Func::Log10 => x.log10(),
            Func::Sqrt => x.sqrt(),
            Func::Exp => x.exp(),
            Func::Abs => x.abs(),
            Func::Ceil => x.ceil(),
            Func::Floor => x.floor(),
            Func::Min | Func::Max => x,
            Func::Pw | Func::Lin => f64::NAN,
        }
    }
}

/// The piecewise power law through the points of `table` (`x1, y1, x2, y2, …`, the
/// breakpoints increasing and every value positive) at `x`: between two neighbouring
/// points the straight line in log-log space, `y_i·(x/x_i)^a` with
/// `a = ln(y_{i+1}/y_i) / ln(x_{i+1}/x_i)`, exact at the points; below the first point
/// and above the last the end pieces' power laws go on. NaN for `x ≤ 0` or a table that
/// is not at least two such points.
///
/// ```
/// use lca::expr::piecewise;
/// let t = [1.0, 2.0, 10.0, 20.0, 100.0, 2000.0];
/// assert_eq!(piecewise(10.0, &t), 20.0);
/// assert!((piecewise(1000.0, &t) - 2000.0 * 100.0).abs() < 1e-6); // last piece: y ~ x^2
/// assert!((piecewise(0.1, &t) - 0.2).abs() < 1e-12); // first piece: y ~ x
/// assert!(piecewise(-1.0, &t).is_nan());
/// ```
pub fn piecewise(x: f64, table: &[f64]) -> f64 {
    if table.len() < 4 || !table.len().is_multiple_of(2) || x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let points: Vec<(f64, f64)> = table.chunks(2).map(|c| (c[0], c[1])).collect();
    let valid = points
        .iter()
        .all(|&(a, b)| a > 0.0 && b > 0.0 && b.is_finite())
        && points.windows(2).all(|w| w[0].0 < w[1].0);
    if !valid {
        return f64::NAN;
    }
    let last = points.len() - 2;
    let i = points[1..=last]
        .iter()
        .position(|&(xi, _)| x < xi)
        .unwrap_or(last);
    let ((x0, y0), (x1, y1)) = (points[i], points[i + 1]);
    if x == x0 {
        return y0;
    }
    if x == x1 {
        return y1;
    }
    let a = (y1 / y0).ln() / (x1 / x0).ln();
    y0 * (x / x0).powf(a)
}

/// The straight lines between the points of `table` (`x1, y1, x2, y2, …`, the breakpoints
/// increasing) at `x`, exact at the points and held at the first and the last value
/// outside them (for keys measured at a few numbers, such as the threads of a machine,
/// where nothing says how they go on; one point is its value everywhere). NaN for a table
/// that is not at least one point with increasing breakpoints, or for `x` NaN.
///
/// ```
/// use lca::expr::linear;
/// let t = [1.0, 1.0, 2.0, 1.6, 4.0, 2.0];
/// assert_eq!(linear(2.0, &t), 1.6);
/// assert!((linear(3.0, &t) - 1.8).abs() < 1e-12);
/// assert_eq!(linear(16.0, &t), 2.0);
/// assert_eq!(linear(0.5, &t), 1.0);
/// assert_eq!(linear(16.0, &[2.0, 0.5]), 0.5);
/// ```
pub fn linear(x: f64, table: &[f64]) -> f64 {
    if table.len() < 2 || !table.len().is_multiple_of(2) || x.is_nan() {
        return f64::NAN;
    }
    let points: Vec<(f64, f64)> = table.chunks(2).map(|c| (c[0], c[1])).collect();
    if !points.windows(2).all(|w| w[0].0 < w[1].0) {
        return f64::NAN;
    }
    let (first, last) = (points[0], points[points.len() - 1]);
    if x <= first.0 {
        return first.1;
    }
    if x >= last.0 {
        return last.1;
    }
    let i = points
        .iter()
        .position(|&(xi, _)| x < xi)
        .unwrap_or(points.len() - 1);
    let ((x0, y0), (x1, y1)) = (points[i - 1], points[i]);
    if x == x0 {
        return y0;
    }
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

/// What makes the arguments after the variable of a `lin` call not a table: not one or
/// more whole points (the count of arguments), or breakpoint `index` (0-based among them) not a
/// finite number literal above the one before it. The values may be any expressions.
pub fn linear_table_problem(table: &[Option<f64>]) -> Option<(usize, &'static str)> {
    if table.len() < 2 || !table.len().is_multiple_of(2) {
        return Some((table.len(), "one or more points (breakpoint, value)"));
    }
    let mut previous = f64::NEG_INFINITY;
    for (index, b) in table.iter().enumerate().step_by(2) {
        match *b {
            Some(v) if v.is_finite() && v > previous => previous = v,
            _ => return Some((index, "breakpoints that are number literals, increasing")),
        }
    }
    None
}

/// What makes the points of a `pw` call (`x1, y1, x2, y2, …`, after its variable) not a
/// table: the one rule both expression parsers (lca's and lcm's PAMELA parser) apply.
#[derive(Debug, Clone, PartialEq)]
pub enum TableProblem {
    /// Not two or more whole points: the number of arguments after the variable.
    Length(usize),
    /// Argument `index` (0-based, after the variable) is not a positive finite number
    /// literal; a breakpoint when `index` is even, a value when odd.
    NotPositive(usize),
    /// Breakpoint `index` (as above) is not above the breakpoint before it, `previous`.
    NotIncreasing {
        /// The argument's index after the variable.
        index: usize,
        /// The breakpoint before it.
        previous: f64,
        /// Its value.
        value: f64,
    },
}

/// The first [`TableProblem`] of a `pw` call's points, each `Some(v)` when the argument is
/// a number literal `v`; None when they are two or more points of positive finite numbers
/// with strictly increasing breakpoints.
pub fn table_problem(points: &[Option<f64>]) -> Option<TableProblem> {
    if points.len() < 4 || !points.len().is_multiple_of(2) {
        return Some(TableProblem::Length(points.len()));
    }
    let mut previous: Option<f64> = None;
    for (index, a) in points.iter().enumerate() {
        let value = match *a {
            Some(v) if v.is_finite() && v > 0.0 => v,
            _ => return Some(TableProblem::NotPositive(index)),
        };
        if index % 2 == 0 {
            if let Some(previous) = previous.filter(|&p| value <= p) {
                return Some(TableProblem::NotIncreasing {
                    index,
                    previous,
                    value,
                });
            }
            previous = Some(value);
        }
    }
    None
}

/// An expression tree (docs/models.md).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number literal (fitted coefficients may be negative).
    Num(f64),
    /// A variable such as `n` or `p`.
    Var(String),
    /// Unary minus.
    Neg(Box<Expr>),
    /// A binary operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// A function call.
    Call(Func, Vec<Expr>),
}

impl Expr {
    /// A number.
    pub fn num(v: f64) -> Expr {
        Expr::Num(v)
    }

    /// A variable.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// `a op b`.
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// `f(args)`.
    pub fn call(f: Func, args: Vec<Expr>) -> Expr {
        Expr::Call(f, args)
    }
}
