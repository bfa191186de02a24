! jacobi-f - apps/jacobi in Fortran 2008 (mpi_f08 and morph_f08): Jacobi
! iteration for the same dense, diagonally dominant system A x = b of
! order n, malleable with morph's native API.
!
! Rows of A, b and x are block-distributed; A is registered as a matrix of
! n values per distributed element, so A%local2(:, r) is local row r. Every
! iteration gathers x and updates the local rows; when the job changes
! size, morph moves the rows and A%local2, b%local and x%local follow. Each
! new x_i sums over j in the same order whatever the distribution, so
! rank 0 checks the result bitwise against a serial run at the end.
!
!   jacobi-f [--size N] [--iters N] [--delay-ms X] [--no-check]
!
! Lines that exist only for malleability end with a morph comment.
program jacobi_f
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit
  use mpi_f08
  use morph_f08
  use app_pause
  implicit none
  integer :: n, iters, provided, st, outcome, seen, ok
  real(real64) :: delay_ms
  logical :: check
  integer, target :: it                                       ! morph
  type(morph_ctx) :: m                                        ! morph
  type(morph_real64), target :: A, b, x                       ! morph
  real(real64), allocatable :: xall(:)

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)         ! morph
  call parse(n, iters, delay_ms, check)
  call morph_open(MPI_COMM_WORLD, m)                          ! morph
  it = 0
  call morph_data_replicated(m, 'it', it)                     ! morph
  call morph_data_block(m, 'A', A, n, lead=n)                 ! morph
  call morph_data_block(m, 'b', b, n)                         ! morph
  call morph_data_block(m, 'x', x, n)                         ! morph
  if (morph_get_status(m) == MORPH_NEW) &                     ! morph
    call init_rows(A%local2, b%local, n, b%offset)
  allocate (xall(n))
  seen = 0
  st = MORPH_STAYING
  do while (it < iters)
    call morph_point(m, st)                                   ! morph
    if (st == MORPH_LEAVING) exit                             ! morph
    call progress(m, seen)                                    ! morph
    call step(morph_comm(m), A%local2, b%local, x%local, xall, n, x%offset)
    call pause_ms(delay_ms)
    it = it + 1
  end do
  ok = 0
  if (st /= MORPH_LEAVING .and. check) ok = verdict(morph_comm(m), x%local, n, iters)
  call morph_finalize(m, ok, outcome)                         ! morph
  if (outcome /= 0) stop outcome, quiet=.true.

contains

  subroutine parse(n, iters, delay_ms, check)
    integer, intent(out) :: n, iters
    real(real64), intent(out) :: delay_ms
    logical, intent(out) :: check
    character(len=64) :: arg, val
    integer :: i
    n = 400
    iters = 100
    delay_ms = 0
    check = .true.
    i = 1
    do while (i <= command_argument_count())
      call get_command_argument(i, arg)
      call get_command_argument(i + 1, val)
      select case (arg)
      case ('--size')
        read (val, *) n
      case ('--iters')
        read (val, *) iters
      case ('--delay-ms')
        read (val, *) delay_ms
      case ('--no-check')
        check = .false.
        i = i - 1
      case default
        write (*, '(a)') 'usage: jacobi-f [--size N] [--iters N] [--delay-ms X] [--no-check]'
        error stop 2
      end select
      i = i + 2
    end do
  end subroutine

  ! Entry (i, j) of A, 0-based as in apps/jacobi: small off-diagonal values
  ! and a dominant diagonal.
  real(real64) function a_entry(n, i, j)
    integer, intent(in) :: n
    integer(int64), intent(in) :: i, j
    if (i == j) then
      a_entry = real(n, real64)
    else
      a_entry = 1.0_real64 / real(1 + mod(i * 7 + j * 3, 11_int64), real64)
    end if
  end function

  subroutine init_rows(Ar, br, n, first)
    real(real64), intent(out) :: Ar(:, :), br(:)
    integer, intent(in) :: n
    integer(int64), intent(in) :: first
    integer(int64) :: r, j
    do r = 1, size(br, kind=int64)
      do j = 1, n
        Ar(j, r) = a_entry(n, first + r - 1, j - 1)
      end do
      br(r) = real(mod(first + r - 1, 13_int64), real64) - 6.0_real64
    end do
  end subroutine

  ! New x of the local rows [first, first + size(br)) from the whole x.
  subroutine sweep(Ar, br, xs, xnew, n, first)
    real(real64), intent(in) :: Ar(:, :), br(:), xs(:)
    real(real64), intent(out) :: xnew(:)
    integer, intent(in) :: n
    integer(int64), intent(in) :: first
    integer(int64) :: r, j
    real(real64) :: s
    do r = 1, size(br, kind=int64)
      s = br(r)
      do j = 1, n
        if (j - 1 /= first + r - 1) s = s - Ar(j, r) * xs(j)
      end do
      xnew(r) = s / Ar(first + r, r)
    end do
  end subroutine

  ! Counts and displacements of the block distribution of n over p.
  subroutine blocks(n, p, counts, displs)
    integer, intent(in) :: n, p
    integer, intent(out) :: counts(0:), displs(0:)
    integer :: r
    do r = 0, p - 1
      displs(r) = int(int(r, int64) * n / p)
      counts(r) = int(int(r + 1, int64) * n / p) - displs(r)
    end do
  end subroutine

  ! One parallel iteration: gather x, update the local rows in place.
  subroutine step(comm, Ar, br, xl, xall, n, first)
    type(MPI_Comm), intent(in) :: comm
    real(real64), intent(in) :: Ar(:, :), br(:)
    real(real64), intent(inout) :: xl(:), xall(:)
    integer, intent(in) :: n
    integer(int64), intent(in) :: first
    integer, allocatable :: counts(:), displs(:)
    real(real64), allocatable :: xnew(:)
    integer :: p
    call MPI_Comm_size(comm, p)
    allocate (counts(0:p - 1), displs(0:p - 1), xnew(size(xl)))
    call blocks(n, p, counts, displs)
    call MPI_Allgatherv(xl, size(xl), MPI_DOUBLE_PRECISION, xall, counts, displs, &
                        MPI_DOUBLE_PRECISION, comm)
    call sweep(Ar, br, xall, xnew, n, first)
    xl = xnew
  end subroutine

  ! Rank 0 prints one line per reconfiguration (as apps/common does).
  subroutine progress(m, seen)
    type(morph_ctx), intent(inout) :: m
    integer, intent(inout) :: seen
    type(morph_reconf_report) :: r
    logical :: restarted
    restarted = morph_get_status(m) == MORPH_JOINING
    call morph_last_report(m, r)
    if (r%seq == seen .and. .not. restarted) return
    seen = r%seq
    if (morph_rank(m) /= 0) return
    if (restarted) then
      write (*, '(a,i0,a,i0,a)') 'it ', morph_iteration(m), ': restarted at ', morph_size(m), &
        ' procs (relaunch)'
    else if (r%outcome /= MORPH_OK) then
      write (*, '(a,i0,a,i0,a,i0,a,i0,2a)') 'it ', r%iteration, ': ', r%old_size, ' -> ', &
        r%requested_size, ' procs failed, kept ', r%old_size, ': ', trim(r%message)
    else
      write (*, '(a,i0,a,i0,a,i0,3a,f0.3,a)') 'it ', r%iteration, ': ', r%old_size, ' -> ', &
        r%new_size, ' procs (', morph_mechanism_name(r%mechanism), ', ', &
        r%t_decision + r%t_spawn + r%t_redist + r%t_commit, ' s)'
    end if
    flush (output_unit)
  end subroutine

  ! Rank 0 gathers x, repeats the iterations serially and compares bitwise;
  ! 0 if equal, 1 otherwise (on every process).
  integer function verdict(comm, xl, n, iters)
    type(MPI_Comm), intent(in) :: comm
    real(real64), intent(in) :: xl(:)
    integer, intent(in) :: n, iters
    real(real64), allocatable :: Ar(:, :), br(:), got(:), xs(:), xnew(:)
    integer, allocatable :: counts(:), displs(:)
    integer :: p, me, k, bad
    call MPI_Comm_size(comm, p)
    call MPI_Comm_rank(comm, me)
    allocate (counts(0:p - 1), displs(0:p - 1), got(n))
    call blocks(n, p, counts, displs)
    call MPI_Gatherv(xl, size(xl), MPI_DOUBLE_PRECISION, got, counts, displs, &
                     MPI_DOUBLE_PRECISION, 0, comm)
    bad = -1
    if (me == 0) then
      allocate (Ar(n, n), br(n), xs(n), xnew(n))
      call init_rows(Ar, br, n, 0_int64)
      xs = 0
      do k = 1, iters
        call sweep(Ar, br, xs, xnew, n, 0_int64)
        xs = xnew
      end do
      do k = n, 1, -1
        if (transfer(got(k), 0_int64) /= transfer(xs(k), 0_int64)) bad = k - 1
      end do
      if (bad >= 0) then
        write (*, '(a,i0,a,i0,a,i0,a,i0,a)') 'CHECK FAILED jacobi-f n=', n, ' iters=', iters, &
          ' procs=', p, ': x[', bad, '] differs from the serial run'
      else
        write (*, '(a,i0,a,i0,a,i0,a)') 'CHECK PASSED jacobi-f n=', n, ' iters=', iters, &
          ' procs=', p, ': bitwise equal to the serial run'
      end if
      flush (output_unit)
    end if
    call MPI_Bcast(bad, 1, MPI_INTEGER, 0, comm)
    verdict = merge(1, 0, bad >= 0)
  end function

end program jacobi_f
