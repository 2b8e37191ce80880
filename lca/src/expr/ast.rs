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
}

impl Func {
    /// All functions, for lookup by name.
    pub const ALL: [Func; 10] = [
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
        }
    }

    /// The function with this name, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// True for `min` and `max`, which take two or more arguments.
    pub fn is_variadic(self) -> bool {
        matches!(self, Func::Min | Func::Max)
    }

    /// Applies the function to evaluated arguments (arity already checked by the parser).
    pub fn apply(self, args: &[f64]) -> f64 {
        match self {
            Func::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
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
        }
    }
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
